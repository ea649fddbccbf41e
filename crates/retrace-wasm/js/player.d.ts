// Types of <retrace-player> (player.js), written by hand; PLAYER.md says
// what each attribute, method and event does.

/** A refusal, as the engine's errors cross: a stable code and a message. */
export interface PlayerError {
  code:
    | 'bad-request'
    | 'no-session'
    | 'not-found'
    | 'not-a-session'
    | 'unreadable'
    | 'superseded'
    | 'edit-refused'
    | 'unsupported'
    | 'closed'
    | 'internal';
  message: string;
}

/** `ready`: the session is open and its first frame drawn. */
export interface ReadyDetail {
  /** Seconds of the replay (idle gaps cut). */
  duration: number;
  /** Rows of the branch played. */
  rows: number;
  /** The session's format (`claude-code`, `pi`, `codex`, …). */
  format: string;
  /** The id of the branch's last entry. */
  leaf: string;
  /** The first prompt, shortened, when there is one. */
  title: string | null;
}

/** `entry`: a row is now the last one shown. */
export interface EntryDetail {
  /** Its index on the branch. */
  row: number;
  /** Its (first) entry's id, as `seek` and `start-at` take it. */
  entry: string;
  /** `user`, `assistant`, `tool`, `system`, or a file's own. */
  role: string;
  /** Seconds of the timeline at that row. */
  time: number;
}

/** `marker`: a marker row was shown by moving one row on. */
export interface MarkerDetail extends EntryDetail {
  kinds: Array<'prompt' | 'error' | 'compaction' | 'fork' | 'subagent' | 'checkpoint' | 'bookmark'>;
}

export interface TimeDetail {
  /** Seconds of the timeline at the last row shown. */
  time: number;
}

export interface PauseDetail extends TimeDetail {
  /** Why: asked (`pause()`, a step, a seek), the end, an error the replay
   * pauses on, or a marker (`pause-on-markers`). */
  reason: 'asked' | 'end' | 'error' | 'marker';
}

/** The player's own events (its `error` is a CustomEvent, not the
 * ErrorEvent of HTMLElementEventMap). */
export interface RetracePlayerEventMap {
  ready: CustomEvent<ReadyDetail>;
  play: CustomEvent<TimeDetail>;
  pause: CustomEvent<PauseDetail>;
  ended: CustomEvent<TimeDetail>;
  marker: CustomEvent<MarkerDetail>;
  entry: CustomEvent<EntryDetail>;
  error: CustomEvent<PlayerError>;
}

export class RetracePlayer extends HTMLElement {
  /** The session from script (wins over `src`); setting it loads it. */
  source: File | Blob | ArrayBuffer | ArrayBufferView | null;
  /** Plays from where it is (from the end: from the start); before
   * `ready`, once ready. */
  play(): void;
  pause(): void;
  /** Seconds of the timeline, or an entry's id; false when not found (an
   * `error` event says why) or before `ready`. */
  seek(to: number | string): boolean;
  /** Seconds of the timeline at the last row shown. */
  getCurrentTime(): number;
  /** Seconds of the whole replay; 0 before `ready`. */
  getDuration(): number;
  /** Ends the worker and frees the session's memory. */
  dispose(): void;

  addEventListener<K extends keyof RetracePlayerEventMap>(
    type: K,
    listener: (this: RetracePlayer, ev: RetracePlayerEventMap[K]) => unknown,
    options?: boolean | AddEventListenerOptions,
  ): void;
  addEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject,
    options?: boolean | AddEventListenerOptions,
  ): void;
  removeEventListener<K extends keyof RetracePlayerEventMap>(
    type: K,
    listener: (this: RetracePlayer, ev: RetracePlayerEventMap[K]) => unknown,
    options?: boolean | EventListenerOptions,
  ): void;
  removeEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject,
    options?: boolean | EventListenerOptions,
  ): void;
}

declare global {
  interface HTMLElementTagNameMap {
    'retrace-player': RetracePlayer;
  }
}
