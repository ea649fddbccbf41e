//! A Codex rollout as a person reads it: one row per step of the model
//! (its reasoning, text and calls with the token count, UI copies and run
//! reports written around them), a turn's settings and start with the row
//! after them; rows read alone say what the branch read whole says (usage,
//! model, settings shown once until they change); a command's end event
//! read into its call's block. And nothing that points at a line is lost:
//! every line is in one row of consecutive lines, fork points stay on the
//! lines they were on, a bookmark on a folded line marks its row.

use retrace_core::{
    pair_calls, safe_points, EntryId, Marks, Message, Part, Piece, Reader, Role, Row, RowKind,
    Session, ToolOutput, ToolRun, Usage,
};

use crate::common::{open, open_clean_fixture};

const CODEX: &str = "codex/AcidicSoil__codex-session-view/.sample_session/rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl";
const EXEC: &str = "codex/exec-events/rollout.jsonl";

fn lines(s: &Session, row: &Row) -> Vec<u32> {
    row.entries.iter().map(|&e| s.entry(e).line).collect()
}

/// Each row's entries are consecutive, and the rows hold every entry of
/// the branch once, in order: a line number (a deep link, a search hit, a
/// bookmark) finds the one row that holds it.
fn assert_rows_cover(s: &Session, rows: &[Row]) {
    let leaf = s.tree().default_leaf().unwrap();
    let all: Vec<EntryId> = rows.iter().flat_map(|r| r.entries.clone()).collect();
    assert_eq!(all, s.branch(leaf));
    for r in rows {
        for pair in r.entries.windows(2) {
            assert_eq!(pair[0].0 + 1, pair[1].0, "{:?}", lines(s, r));
        }
    }
}

/// The settings pieces of a message.
fn settings(m: &Message) -> Vec<&str> {
    m.harness
        .iter()
        .filter_map(|p| match p {
            Piece::Context { label, text } if label == "turn settings" => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

/// What a call's block shows of its result: the output taken apart with
/// its run's report.
fn block(output: &str, run: Option<&ToolRun>) -> ToolOutput {
    let o = ToolOutput::of(output);
    match run {
        Some(r) => o.with_run(r),
        None => o,
    }
}

/// Each call's block, by call id.
type Blocks = Vec<(String, ToolOutput)>;

/// The blocks `retrace show` writes (the branch read whole, calls paired
/// by `pair_calls`, the runs' reports of both messages) and the ones the
/// viewer draws (rows read alone, results found by `row_pairing` with the
/// reports merged in), by call id.
fn blocks_both_ways(s: &Session, bytes: &[u8]) -> (Blocks, Blocks) {
    let leaf = s.tree().default_leaf().unwrap();
    let messages = s.context(leaf, &mut &bytes[..]).unwrap();
    let mut shown = Vec::new();
    for p in pair_calls(&messages) {
        let (call, result) = (&messages[p.call.0], &messages[p.result.0]);
        let Part::ToolResult {
            call_id, output, ..
        } = &result.content[p.result.1]
        else {
            panic!()
        };
        let mut run = result.run_of(call_id).cloned();
        if let (Some(r), Some(c)) = (&mut run, call.run_of(call_id)) {
            r.merge(c.clone());
        }
        let run = run.or_else(|| call.run_of(call_id).cloned());
        shown.push((call_id.clone(), block(output, run.as_ref())));
    }
    let rows = s.rows(leaf);
    let mut drawn = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let Some(m) = s.row_message(row, &mut &bytes[..]).unwrap() else {
            continue;
        };
        let pairing = s.row_pairing(&rows, i, &m, &mut &bytes[..]).unwrap();
        // As the page reads a result: its output taken apart, with what
        // the pairing gives besides.
        for r in pairing.results {
            let mut o = ToolOutput::of(&r.output);
            if r.stderr.is_some() {
                o.stderr = r.stderr.clone();
            }
            o.exit_code = o.exit_code.or(r.exit_code);
            o.wall_time = o.wall_time.or(r.wall_time.clone());
            drawn.push((r.call_id.clone(), o));
        }
    }
    (shown, drawn)
}

#[test]
fn the_corpus_rollout_reads_as_steps() {
    let (s, bytes) = open(CODEX);
    let leaf = s.tree().default_leaf().unwrap();
    let rows = s.rows(leaf);
    assert_rows_cover(&s, &rows);
    // 279 lines: the session's start, the environment, the prompt, the
    // checkpoint (with the prompt's UI copy and the turn's settings before
    // it), 39 steps and 39 outputs; the turn's settings and a token count
    // written after the last output, for a response the file does not
    // have, stay lines of their own.
    assert_eq!(rows.len(), 84);
    let events: Vec<Vec<u32>> = rows
        .iter()
        .filter(|r| r.kind == RowKind::Event)
        .map(|r| lines(&s, r))
        .collect();
    assert_eq!(events, [vec![1], vec![278], vec![279]]);
    assert_eq!(lines(&s, &rows[3]), [4, 5, 6]);
    assert!(rows[3].marks.has(Marks::CHECKPOINT));
    // The first step: the UI copy of its reasoning and the token counts
    // before its reasoning and call.
    assert_eq!(lines(&s, &rows[4]), [7, 8, 9, 10, 11]);
    assert_eq!(lines(&s, &rows[5]), [12]);
    // Later steps begin with the settings and counts written after the
    // output before them (0.58 writes both again after each call).
    assert_eq!(lines(&s, &rows[6]), [13, 14, 15, 16, 17, 18]);

    // Each step row reads as the response the branch read whole has there:
    // its reasoning, its call, the model, its usage (the count before its
    // items, not the repeat of the last one), and the turn's settings on
    // the first one only.
    let context = s.context(leaf, &mut &bytes[..]).unwrap();
    let mut steps = 0;
    let mut shown_settings = Vec::new();
    for row in rows.iter().filter(|r| r.role == "assistant") {
        let m = s.row_message(row, &mut &bytes[..]).unwrap().unwrap();
        let whole = context
            .iter()
            .find(|c| c.lines.first() == m.lines.first())
            .unwrap_or_else(|| panic!("no message at {:?}", m.lines));
        assert_eq!(
            (&m.content, &m.usage, &m.model, &m.harness),
            (&whole.content, &whole.usage, &whole.model, &whole.harness),
            "row at lines {:?}",
            lines(&s, row)
        );
        assert_eq!(m.tool_calls().count(), 1);
        assert!(m.usage.is_some(), "{:?}", m.lines);
        assert_eq!(m.model.as_deref(), Some("gpt-5.1-codex"));
        shown_settings.extend(settings(&m).into_iter().map(|t| (m.lines[0], t.to_owned())));
        steps += 1;
    }
    assert_eq!(steps, 39);
    assert_eq!(
        shown_settings,
        [(
            10,
            "model gpt-5.1-codex · effort high · approval never · cwd /home/user/projects/temp/chatbot-ui · sandbox danger-full-access".to_owned()
        )]
    );
    let first = s.row_message(&rows[4], &mut &bytes[..]).unwrap().unwrap();
    assert!(
        matches!(&first.content[0], Part::Thinking { text, .. } if text.contains("Planning repository inspection"))
    );
    assert_eq!(first.usage.map(|u| (u.input, u.output)), Some((10128, 37)));
    // The second step's own count, not the first's repeated before it.
    let second = s.row_message(&rows[6], &mut &bytes[..]).unwrap().unwrap();
    assert_eq!(second.usage.map(|u| (u.input, u.output)), Some((10334, 43)));
    // The usage of all steps is the branch's.
    let total = |ms: &mut dyn Iterator<Item = Usage>| {
        ms.fold((0, 0, 0), |t, u| {
            (t.0 + u.input, t.1 + u.output, t.2 + u.cache_read)
        })
    };
    let by_rows = total(&mut rows.iter().filter_map(|r| {
        s.row_message(r, &mut &bytes[..])
            .unwrap()
            .and_then(|m| m.usage)
    }));
    let whole = total(&mut context.iter().filter_map(|m| m.usage));
    assert_eq!(by_rows, whole);

    // The 0.58 output's metadata: every shell call's exit code (the two
    // `update_plan` calls answer "Plan updated"), the same both ways (three
    // commands failed).
    let (shown, drawn) = blocks_both_ways(&s, &bytes);
    assert_eq!(shown.len(), 39);
    assert_eq!(shown, drawn);
    let codes: Vec<Option<i64>> = shown.iter().map(|(_, o)| o.exit_code).collect();
    assert_eq!(codes.iter().filter(|c| c.is_some()).count(), 37);
    assert_eq!(
        codes.iter().filter(|c| c.is_some_and(|c| c != 0)).count(),
        3
    );
    // 0.58 writes a duration of 0.0 for every command: none is shown.
    assert!(shown.iter().all(|(_, o)| o.wall_time.is_none()));

    // Fork points stay on the lines they were on: the prompt and every
    // output, each the last line of its row.
    let points = safe_points(&s, &mut &bytes[..], leaf).unwrap();
    let text = String::from_utf8_lossy(&bytes);
    let expected: Vec<u32> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| {
            l.contains(r#""type":"function_call_output""#)
                || (l.contains(r#""type":"response_item""#) && l.contains(r#""role":"user""#))
        })
        .map(|(i, _)| i as u32 + 1)
        .collect();
    assert_eq!(expected.len(), 41);
    let at: Vec<u32> = points.iter().map(|p| p.line).collect();
    assert_eq!(at, expected);
    for p in &points {
        assert!(rows.iter().any(|r| r.entries.last() == Some(&p.entry)));
    }
}

/// A bookmark on a folded line (a token count) marks the row that holds
/// it, as a deep link or a search hit on that line lands there.
#[test]
fn a_bookmark_on_a_folded_line_marks_its_row() {
    let bytes = crate::common::read(CODEX);
    let mut reader = Reader::new();
    let file = reader.begin_file("rollout.jsonl");
    reader.push(&bytes);
    reader.attach_snapshots(
        file,
        "rollout.jsonl.snapshots.json",
        br#"{"snapshots":[{"name":"first count","target":"L9"}]}"#,
    );
    let s = reader.finish();
    let rows = s.rows(s.tree().default_leaf().unwrap());
    let marked: Vec<Vec<u32>> = rows
        .iter()
        .filter(|r| r.marks.has(Marks::BOOKMARK))
        .map(|r| lines(&s, r))
        .collect();
    assert_eq!(marked, [vec![7, 8, 9, 10, 11]]);
}

#[test]
fn a_commands_end_is_read_into_its_calls_block() {
    let (s, bytes) = open_clean_fixture(EXEC);
    let leaf = s.tree().default_leaf().unwrap();
    let rows = s.rows(leaf);
    assert_rows_cover(&s, &rows);
    let layout: Vec<Vec<u32>> = rows.iter().map(|r| lines(&s, r)).collect();
    assert_eq!(
        layout,
        [
            vec![1],
            // The turn's start and settings with the environment after them.
            vec![2, 3, 4],
            vec![5],
            // The prompt's UI copy, then a step with its count and the
            // command's begin and end events.
            vec![6, 7, 8, 9, 10, 11],
            vec![12],
            vec![13, 14, 15, 16, 17],
            vec![18],
            vec![19, 20, 21],
            vec![22],
            // The answer with its UI copy, its count and the turn's end.
            vec![23, 24, 25, 26],
            vec![27, 28, 29],
            vec![30, 31, 32, 33],
            vec![34],
            vec![35, 36, 37],
        ]
    );
    assert!(rows[1..].iter().all(|r| r.kind == RowKind::Message));

    // The first step's row: its reasoning and call, the run's report, the
    // usage, the turn's settings.
    let step = s.row_message(&rows[3], &mut &bytes[..]).unwrap().unwrap();
    assert_eq!(step.role, Role::Assistant);
    assert_eq!(
        step.tool_calls().collect::<Vec<_>>(),
        [("call_a", "exec_command")]
    );
    assert_eq!(step.usage.map(|u| (u.input, u.output)), Some((100, 20)));
    assert_eq!(
        settings(&step),
        ["model gpt-5.2-codex · effort medium · approval on-request · cwd /home/user/proj · sandbox workspace-write"]
    );
    let run = step.run_of("call_a").expect("the end event's report");
    assert_eq!(run.command, ["bash", "-lc", "cargo test"]);
    assert_eq!(
        (run.exit_code, run.duration_ms, run.failed),
        (Some(101), Some(2350), true)
    );
    assert_eq!(
        run.stderr.as_deref(),
        Some("error: test failed, to rerun pass `--lib`\n")
    );
    // Its output folds into it.
    let pairing = s.row_pairing(&rows, 3, &step, &mut &bytes[..]).unwrap();
    assert_eq!(pairing.results.len(), 1);
    assert_eq!(pairing.results[0].row, 4);
    let out = s.row_message(&rows[4], &mut &bytes[..]).unwrap().unwrap();
    let back = s.row_pairing(&rows, 4, &out, &mut &bytes[..]).unwrap();
    assert_eq!(back.folded_into, Some(3));

    // The blocks, the same both ways: stderr apart, exit codes and
    // durations where the output lacks them.
    let (shown, drawn) = blocks_both_ways(&s, &bytes);
    assert_eq!(shown, drawn);
    let by_id = |id: &str| &shown.iter().find(|(c, _)| c == id).unwrap().1;
    let a = by_id("call_a");
    assert_eq!(a.exit_code, Some(101));
    assert_eq!(
        a.output,
        "running 2 tests\ntest adds ... ok\ntest four ... FAILED\n"
    );
    assert_eq!(
        a.stderr.as_deref(),
        Some("error: test failed, to rerun pass `--lib`\n")
    );
    // The output's own framing says the wall time as written.
    assert_eq!(a.wall_time.as_deref(), Some("2.3500 seconds"));
    let c = by_id("call_c");
    assert_eq!(
        (c.exit_code, c.wall_time.as_deref()),
        (Some(0), Some("1.8 s"))
    );
    assert_eq!(
        c.output,
        "running 2 tests\ntest adds ... ok\ntest four ... ok\n"
    );
    let d = by_id("call_d");
    assert_eq!(
        (d.exit_code, d.wall_time.as_deref()),
        (Some(0), Some("41 ms"))
    );
    // A patch reports no exit code; its success is the output's.
    let b = by_id("call_b");
    assert_eq!((b.exit_code, b.stderr.as_deref()), (None, None));

    // The second turn's settings differ (effort high): shown on its first
    // step, both ways; the answers after carry none.
    let context = s.context(leaf, &mut &bytes[..]).unwrap();
    let whole: Vec<(u32, String)> = context
        .iter()
        .flat_map(|m| settings(m).into_iter().map(|t| (m.lines[0], t.to_owned())))
        .collect();
    let by_rows: Vec<(u32, String)> = rows
        .iter()
        .filter_map(|r| s.row_message(r, &mut &bytes[..]).unwrap())
        .flat_map(|m| {
            let line = m.lines[0];
            settings(&m)
                .into_iter()
                .map(|t| (line, t.to_owned()))
                .collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(whole, by_rows);
    assert_eq!(whole.len(), 2);
    assert_eq!(whole[1].0, 31);
    assert!(whole[1].1.contains("effort high"));
}

/// A run's report is shown wherever its output is missing: a call whose
/// output was never written gets the report as its result; a report
/// written away from its call (after the output, then a step) is a result
/// of the row that holds it, not lost.
#[test]
fn a_report_without_its_output_or_away_from_its_call_is_still_shown() {
    let bytes = crate::common::fixture(EXEC);
    let text = String::from_utf8(bytes).unwrap();
    let line = |n: usize| text.lines().nth(n - 1).unwrap();
    let rollout = |numbers: &[usize]| -> String {
        numbers.iter().map(|&n| format!("{}\n", line(n))).collect()
    };

    // The session ends after the end event, before the output.
    let cut = rollout(&(1..=11).collect::<Vec<_>>());
    let s = Session::from_bytes("cut.jsonl", cut.as_bytes());
    let rows = s.rows(s.tree().default_leaf().unwrap());
    let step = rows.len() - 1;
    assert_eq!(lines(&s, &rows[step]), [6, 7, 8, 9, 10, 11]);
    let m = s
        .row_message(&rows[step], &mut cut.as_bytes())
        .unwrap()
        .unwrap();
    let pairing = s.row_pairing(&rows, step, &m, &mut cut.as_bytes()).unwrap();
    assert!(pairing.unanswered.is_empty());
    let [r] = &pairing.results[..] else {
        panic!("{:?}", pairing.results)
    };
    assert_eq!((r.row, r.call_id.as_str()), (step, "call_a"));
    assert_eq!(
        (r.exit_code, r.wall_time.as_deref()),
        (Some(101), Some("2.3 s"))
    );
    assert_eq!(
        r.output,
        "running 2 tests\ntest adds ... ok\ntest four ... FAILED\n"
    );
    assert!(r
        .stderr
        .as_deref()
        .unwrap()
        .starts_with("error: test failed"));
    assert!(r.is_error);

    // The end event written after the output, then the next step: it
    // goes with that step, which shows it.
    let moved = rollout(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 11, 13, 14]);
    let s = Session::from_bytes("moved.jsonl", moved.as_bytes());
    let rows = s.rows(s.tree().default_leaf().unwrap());
    let layout: Vec<Vec<u32>> = rows.iter().map(|r| lines(&s, r)).collect();
    assert_eq!(layout[layout.len() - 2..], [vec![10], vec![11, 12, 13]]);
    let last = rows.len() - 1;
    let m = s
        .row_message(&rows[last], &mut moved.as_bytes())
        .unwrap()
        .unwrap();
    let pairing = s
        .row_pairing(&rows, last, &m, &mut moved.as_bytes())
        .unwrap();
    let shown: Vec<(&str, usize, Option<i64>)> = pairing
        .results
        .iter()
        .map(|r| (r.call_id.as_str(), r.row, r.exit_code))
        .collect();
    assert!(shown.contains(&("call_a", last, Some(101))), "{shown:?}");
    // And `retrace show` has it on the call's result.
    let messages = s
        .context(s.tree().default_leaf().unwrap(), &mut moved.as_bytes())
        .unwrap();
    let output = messages
        .iter()
        .find(|m| m.tool_results().any(|(id, _)| id == "call_a"))
        .unwrap();
    assert_eq!(output.run_of("call_a").and_then(|r| r.exit_code), Some(101));
}

/// On every Codex fixture (rollbacks, a compaction, forks read with their
/// parents, sub-agents, a rollout resumed by a newer CLI, the layout
/// before Sept 2025) and on every branch, each step row read alone says
/// what the branch read whole says of that response: its parts, usage,
/// model and context pieces.
#[test]
fn every_codex_step_row_reads_as_its_branch_read_whole() {
    let dir = crate::common::fixtures().join("codex");
    let mut sets: Vec<Vec<String>> = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        if path.is_dir() {
            let mut files: Vec<String> = std::fs::read_dir(&path)
                .unwrap()
                .map(|f| format!("codex/{name}/{}", f.unwrap().file_name().to_str().unwrap()))
                .collect();
            files.sort();
            sets.push(files);
        } else {
            sets.push(vec![format!("codex/{name}")]);
        }
    }
    sets.sort();
    assert!(sets.len() >= 10, "{sets:?}");
    let mut checked = 0;
    for files in &sets {
        let names: Vec<&str> = files.iter().map(String::as_str).collect();
        let (s, bytes) = crate::common::open_fixtures(&names);
        let mut src = crate::common::source(&bytes);
        let leaves: Vec<EntryId> = s.tree().leaves().collect();
        for leaf in leaves {
            let context = s.context(leaf, &mut src).unwrap();
            for row in s.rows(leaf).iter().filter(|r| r.role == "assistant") {
                let m = s.row_message(row, &mut src).unwrap().unwrap();
                // Lines before a compaction are not in the context.
                let Some(whole) = context.iter().find(|c| {
                    c.role == Role::Assistant && c.lines == m.lines && c.timestamp == m.timestamp
                }) else {
                    continue;
                };
                assert_eq!(
                    (&m.content, &m.usage, &m.model, &m.harness),
                    (&whole.content, &whole.usage, &whole.model, &whole.harness),
                    "{files:?} at lines {:?}",
                    lines(&s, row)
                );
                checked += 1;
            }
        }
    }
    assert!(checked >= 40, "{checked}");
}
