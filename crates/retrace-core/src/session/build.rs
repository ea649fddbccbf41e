//! Building a session from what the reader indexed: each file's format,
//! the links its rules write, ids resolved across files, the default leaf,
//! the tree and the subagents. Also the reader's format-aware front door
//! (`Reader::new`, `Reader::finish`): the read layer knows no format.

use crate::format::{key_table, FileCx, Links, Subagent, NONE};
use crate::model::diag::{Diagnostic, DiagnosticKind, Severity};
use crate::model::entry::{Entry, EntryId, FileId, Flags};
use crate::model::format_id::Format;
use crate::model::intern::{Interner, Sym};
use crate::model::sort::sort_by_key;
use crate::read::file::FileInfo;
use crate::read::reader::{Reader, ReaderOptions};
use crate::tree::Tree;

use super::{bookmarks, Session};

impl Reader {
    /// A reader for every format retrace knows.
    pub fn new() -> Reader {
        Reader::with_options(ReaderOptions::default())
    }

    /// A reader for every format retrace knows, with `options`.
    pub fn with_options(options: ReaderOptions) -> Reader {
        Reader::with_keys(options, key_table())
    }

    /// Ends the last file and builds the branch tree.
    pub fn finish(mut self) -> Session {
        self.end_file();
        Session::build(self)
    }
}

impl Default for Reader {
    fn default() -> Self {
        Reader::new()
    }
}

impl Session {
    /// Reads one whole file held in memory.
    pub fn from_bytes(name: &str, bytes: &[u8]) -> Session {
        let mut reader = Reader::new();
        reader.begin_file(name);
        reader.push(bytes);
        reader.finish()
    }

    /// Builds the tree over what the reader indexed, in stages: each file's
    /// format, the links its rules write, parents named by id resolved
    /// across files, the default leaf, the tree, then the subagents its
    /// rules find, the timestamps checked against it and the bookmarks
    /// (pi labels, attached side-cars).
    pub(crate) fn build(reader: Reader) -> Session {
        let Reader {
            options,
            files,
            mut entries,
            interner,
            digests,
            mut diagnostics,
            snapshots,
            ..
        } = reader;
        debug_assert!(
            entries.iter().all(|e| {
                ![e.id, e.parent, e.reference, e.group]
                    .contains(&crate::model::intern::Sym::PENDING)
            }),
            "the reader left an id uninterned"
        );
        let file_formats = detect_formats(&files, &entries, &interner, options.format);
        // Read anyway, and say so (unless the user asked for plain JSON).
        for (f, info) in files.iter().enumerate() {
            let unrecognised = file_formats[f] == Format::Generic && options.format.is_none();
            if unrecognised && info.end_entry > info.first_entry {
                diagnostics.push(unknown_format(FileId(f as u16)));
            }
        }
        let cxs: Vec<FileCx> = files
            .iter()
            .enumerate()
            .map(|(i, info)| FileCx {
                file: FileId(i as u16),
                info,
                format: file_formats[i],
                entries: &entries,
                interner: &interner,
                digests: &digests,
            })
            .collect();
        let mut links = link(&cxs, &mut diagnostics);
        let by_id = resolve_ids(&cxs, &mut links, &mut diagnostics);
        drop(cxs);
        let Links {
            node,
            mut parent,
            flags,
            current,
            diagnostics: link_diagnostics,
            ..
        } = links;
        // Most formats set no flag while linking: skip touching every entry.
        if flags.iter().any(|&f| f != 0) {
            for (entry, f) in entries.iter_mut().zip(flags) {
                entry.flags.0 |= f;
            }
        }
        diagnostics.extend(link_diagnostics);
        if let Some(forced) = options.format {
            diagnostics.extend(mismatches(&files, &entries, &interner, forced, &node));
        }
        for (p, &is_node) in parent.iter_mut().zip(&node) {
            if !is_node {
                *p = NONE;
            }
        }
        break_cycles(&entries, &node, &mut parent, &mut diagnostics);

        let default_leaf = match current.first() {
            Some(&now) if now != NONE => Some(EntryId(now)),
            _ => default_leaf(&entries, &file_formats, &interner, &node, &parent, &by_id),
        };
        let tree = tree(
            &entries,
            &file_formats,
            &interner,
            node,
            parent,
            default_leaf,
        );
        sort_by_key(&mut diagnostics, |d| (d.file, d.offset, d.line));
        let mut session = Session {
            format: session_format(&files, &file_formats),
            file_formats,
            files,
            entries,
            interner,
            diagnostics,
            tree,
            subagents: Vec::new(),
            bookmarks: Vec::new(),
        };
        session.subagents = subagents(&session);
        session.check_timestamps();
        let (bookmarks, problems) = bookmarks::collect(&session, &snapshots);
        session.bookmarks = bookmarks;
        if !problems.is_empty() {
            session.diagnostics.extend(problems);
            sort_by_key(&mut session.diagnostics, |d| (d.file, d.offset, d.line));
        }
        session
    }

    /// Reports entries whose timestamp is earlier than their parent's.
    fn check_timestamps(&mut self) {
        let mut found = Vec::new();
        for (i, entry) in self.entries.iter().enumerate() {
            let Some(t) = entry.timestamp() else { continue };
            let Some(p) = self.tree.parent(EntryId(i as u32)) else {
                continue;
            };
            if let Some(pt) = self.entries[p.index()].timestamp() {
                // Claude Code's compaction boundary is written with the
                // time of the compaction, its logical parent earlier; fine.
                if t < pt {
                    found.push(Diagnostic::at(
                        entry,
                        Severity::Info,
                        DiagnosticKind::TimestampOutOfOrder,
                        format!(
                            "timestamp is {} ms earlier than its parent's (line {})",
                            pt - t,
                            self.entries[p.index()].line
                        ),
                    ));
                }
            }
        }
        if !found.is_empty() {
            self.diagnostics.extend(found);
            sort_by_key(&mut self.diagnostics, |d| (d.file, d.offset, d.line));
        }
    }
}

/// Each file's format: the one `forced` (`--format`, with what the file
/// says of its version), else the one detection is surest of.
fn detect_formats(
    files: &[FileInfo],
    entries: &[Entry],
    interner: &Interner,
    forced: Option<Format>,
) -> Vec<Format> {
    files
        .iter()
        .map(|f| {
            let own = &entries[f.first_entry as usize..f.end_entry as usize];
            match forced {
                Some(named) => named.rules().forced(own, interner),
                None => Format::detect(f, own, interner),
            }
        })
        .collect()
}

/// A `format-mismatch` warning for each file `forced` was named for that
/// detection reads as another format: what it was read as, what it would
/// have been read as, and how much of it the forced format took into the
/// tree (most often nothing). Naming `generic` (plain JSON) is never
/// questioned.
fn mismatches(
    files: &[FileInfo],
    entries: &[Entry],
    interner: &Interner,
    forced: Format,
    node: &[bool],
) -> Vec<Diagnostic> {
    if forced == Format::Generic {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (f, info) in files.iter().enumerate() {
        let range = info.first_entry as usize..info.end_entry as usize;
        let detected = Format::detect(info, &entries[range.clone()], interner);
        if detected == Format::Generic || detected.name() == forced.name() {
            continue;
        }
        let nodes = node[range.clone()].iter().filter(|&&n| n).count();
        out.push(Diagnostic {
            severity: Severity::Warning,
            kind: DiagnosticKind::FormatMismatch,
            file: FileId(f as u16),
            line: 1,
            offset: 0,
            message: format!(
                "read as {forced} because --format says so, but it looks like {detected}: \
                 without --format it is read as {detected} ({nodes} of its {} entries are \
                 on the tree as {forced})",
                range.len(),
                forced = forced.name(),
                detected = detected.describe(),
            ),
        });
    }
    out
}

/// The session's format: its first file's, passing over empty files (a
/// Claude Code project folder can hold a 0-byte session).
fn session_format(files: &[FileInfo], file_formats: &[Format]) -> Format {
    files
        .iter()
        .zip(file_formats)
        .find(|(info, _)| info.end_entry > info.first_entry)
        .or(files.iter().zip(file_formats).next())
        .map_or(Format::Generic, |(_, &f)| f)
}

/// Each format marks its nodes and links them, file by file, then across
/// the files it was given together; entry types a format does not know are
/// reported (and kept).
fn link(cxs: &[FileCx], diagnostics: &mut Vec<Diagnostic>) -> Links {
    let Some(first) = cxs.first() else {
        return Links::new(0, 0);
    };
    let (entries, interner) = (first.entries, first.interner);
    let mut links = Links::new(entries.len(), cxs.len());
    for cx in cxs {
        let rules = cx.format.rules();
        // Per type: 0 not asked yet, 1 known, 2 unknown.
        let mut known_kind: Vec<u8> = Vec::new();
        for entry in cx.own() {
            if entry.is_broken() {
                continue;
            }
            let known = if entry.kind.is_none() {
                rules.is_known_type(entry, interner)
            } else {
                let k = entry.kind.index();
                if k >= known_kind.len() {
                    known_kind.resize(k + 1, 0);
                }
                if known_kind[k] == 0 {
                    known_kind[k] = 2 - u8::from(rules.is_known_type(entry, interner));
                }
                known_kind[k] == 1
            };
            if !known {
                diagnostics.push(unknown_type(entry, interner));
            }
        }
        rules.link(cx, &mut links);
    }
    let mut seen: Vec<&'static str> = Vec::new();
    for cx in cxs {
        let name = cx.format.name();
        if seen.contains(&name) {
            continue;
        }
        seen.push(name);
        let same: Vec<&FileCx> = cxs.iter().filter(|c| c.format.name() == name).collect();
        cx.format.rules().link_files(&same, &mut links);
    }
    links
}

/// The tree over the linked nodes, each fan-out judged by its format.
fn tree(
    entries: &[Entry],
    file_formats: &[Format],
    interner: &Interner,
    node: Vec<bool>,
    parent: Vec<u32>,
    default_leaf: Option<EntryId>,
) -> Tree {
    // One file (the usual case): its rules, without reading every entry
    // for its file (a pass over the whole index, for formats whose answers
    // do not look at the entry).
    let only = match file_formats {
        [one] => Some(one.rules()),
        _ => None,
    };
    let rules_of =
        |e: u32| only.unwrap_or_else(|| file_formats[entries[e as usize].file.0 as usize].rules());
    Tree::build(
        node,
        parent,
        default_leaf,
        |e, kids| {
            rules_of(e.0).is_real_fork(&mut kids.iter().map(|&c| &entries[c as usize]), interner)
        },
        |c| rules_of(c.0).is_branch_start(&entries[c.index()], interner),
    )
}

/// The subagent runs each format finds in its files.
fn subagents(session: &Session) -> Vec<Subagent> {
    let mut seen: Vec<&'static str> = Vec::new();
    let mut out = Vec::new();
    for &f in &session.file_formats {
        if !seen.contains(&f.name()) {
            seen.push(f.name());
            out.extend(f.rules().subagents(&session.view()));
        }
    }
    out
}

/// A file that fits no format: read as plain JSON lines, and said so.
fn unknown_format(file: FileId) -> Diagnostic {
    let names: Vec<&str> = Format::NAMES
        .iter()
        .map(|(n, _)| *n)
        .filter(|&n| n != "generic")
        .collect();
    Diagnostic {
        severity: Severity::Warning,
        kind: DiagnosticKind::UnknownFormat,
        file,
        line: 1,
        offset: 0,
        message: format!(
            "not a session of any known format ({}); its lines were read as \
             plain JSON and nothing else was checked (--format names one)",
            names.join(", ")
        ),
    }
}

/// Indexes the ids of nodes in formats that link by id (the oldest entry
/// wins a duplicate id, as Claude Code's resumed files need) and resolves
/// the parents named by id.
///
/// A sidechain line (a subagent's, `isSidechain`) names its parent among
/// the lines of its own file first: a subagent file that reuses ids of the
/// main file or of another subagent's stays its own branch, and the main
/// conversation is not grafted onto it (a repeated id is still reported).
fn resolve_ids(cxs: &[FileCx], links: &mut Links, diagnostics: &mut Vec<Diagnostic>) -> IdIndex {
    let Some(first) = cxs.first() else {
        return IdIndex(Vec::new());
    };
    let (entries, interner) = (first.entries, first.interner);
    // Symbols are dense, so the id index is a plain vector.
    let mut by_id = IdIndex(vec![NONE; interner.len()]);
    // The same, per file, for sidechain lines: filled and cleared one
    // file at a time, so linear in the entries.
    let mut own = IdIndex(vec![NONE; interner.len()]);
    let mut touched: Vec<usize> = Vec::new();
    let links_by_id: Vec<&FileCx> = cxs
        .iter()
        .filter(|cx| cx.format.rules().ids_are_links())
        .collect();
    for cx in &links_by_id {
        for e in cx.range() {
            let entry = &entries[e];
            if !links.node[e] || entry.id.is_none() {
                continue;
            }
            if let Some(&first) = by_id.get(&entry.id) {
                let first = &entries[first as usize];
                let message = if first.file != entry.file && entry.flags.has(Flags::SIDECHAIN) {
                    format!(
                        "id \"{}\" is also the id of line {} of {}; this subagent file's \
                         lines link to their own",
                        interner.str(entry.id),
                        first.line,
                        cx_name(cxs, first.file),
                    )
                } else {
                    format!(
                        "id \"{}\" was already used on line {}; references go to that entry",
                        interner.str(entry.id),
                        first.line
                    )
                };
                diagnostics.push(Diagnostic::at(
                    entry,
                    Severity::Warning,
                    DiagnosticKind::DuplicateId,
                    message,
                ));
            } else {
                by_id.0[entry.id.index()] = e as u32;
            }
        }
    }
    for cx in &links_by_id {
        let range = cx.range();
        let sidechain = entries[range.clone()]
            .iter()
            .any(|e| e.flags.has(Flags::SIDECHAIN));
        if sidechain {
            for e in range.clone() {
                let id = entries[e].id;
                if links.node[e] && !id.is_none() && own.0[id.index()] == NONE {
                    own.0[id.index()] = e as u32;
                    touched.push(id.index());
                }
            }
        }
        for e in range {
            let entry = &entries[e];
            let wanted = links.parent_id[e];
            if !links.node[e] || wanted.is_none() {
                continue;
            }
            let found = match own.get(&wanted) {
                Some(p) if entry.flags.has(Flags::SIDECHAIN) => Some(p),
                _ => by_id.get(&wanted),
            };
            link_parent(
                links,
                e,
                entry,
                found.copied(),
                || interner.str(wanted),
                diagnostics,
            );
        }
        for i in touched.drain(..) {
            own.0[i] = NONE;
        }
    }
    // Files of formats that do not link by id may still name parents by
    // id: resolved against every file.
    let mut linked = vec![false; cxs.len()];
    for cx in &links_by_id {
        linked[cx.file.0 as usize] = true;
    }
    for (e, entry) in entries.iter().enumerate() {
        let wanted = links.parent_id[e];
        if !links.node[e] || wanted.is_none() || linked[entry.file.0 as usize] {
            continue;
        }
        let found = by_id.get(&wanted).copied();
        link_parent(links, e, entry, found, || interner.str(wanted), diagnostics);
    }
    by_id
}

/// Links entry `e` to the parent `found` for the id it names, or says why
/// it stays a root: the id is its own, or no entry has it (`wanted`).
fn link_parent<S: AsRef<str>>(
    links: &mut Links,
    e: usize,
    entry: &Entry,
    found: Option<u32>,
    wanted: impl FnOnce() -> S,
    diagnostics: &mut Vec<Diagnostic>,
) {
    match found {
        Some(p) if p as usize != e => links.parent[e] = p,
        Some(_) => diagnostics.push(Diagnostic::at(
            entry,
            Severity::Warning,
            DiagnosticKind::ParentCycle,
            "entry is its own parent; treated as a root",
        )),
        None => diagnostics.push(missing_parent(entry, wanted().as_ref())),
    }
}

fn missing_parent(entry: &Entry, wanted: &str) -> Diagnostic {
    Diagnostic::at(
        entry,
        Severity::Warning,
        DiagnosticKind::MissingParent,
        format!("parent \"{wanted}\" is not in the session; entry treated as a root"),
    )
}

/// A file's name, for a diagnostic about another file.
fn cx_name(cxs: &[FileCx], file: FileId) -> String {
    cxs.get(file.0 as usize)
        .map_or_else(|| format!("file {}", file.0), |cx| cx.info.name.clone())
}

/// The leaf a tool opens by default when the first file's format does not
/// know where its session stands now (see `Links::current`): the last node
/// of the first file with nodes (a folder's first file can be a stub:
/// Claude Code writes files that hold only a `summary` line), where a main
/// conversation's sidechain lines do not count unless the file is all
/// sidechain (a subagent file opened on its own), or what a leaf marker
/// names; for a stream split over files, followed on to its last part.
/// When a later file goes on from that node (a Codex fork of the whole
/// rollout), the last node of that file: where the conversation now stands,
/// even if it rolled back to before the node. With several such files, the
/// one read last.
fn default_leaf(
    entries: &[Entry],
    file_formats: &[Format],
    interner: &Interner,
    node: &[bool],
    parent: &[u32],
    by_id: &IdIndex,
) -> Option<EntryId> {
    let n = entries.len();
    // Per file, its last node off a sidechain and its last node; per node,
    // its last child: one pass each, so following a chain of files costs
    // a step per file, not a scan of the session per file.
    let mut last_main = vec![usize::MAX; file_formats.len()];
    let mut last_any = vec![usize::MAX; file_formats.len()];
    let mut last_child_of = vec![NONE; n];
    for e in (0..n).filter(|&e| node[e]) {
        let f = entries[e].file.0 as usize;
        last_any[f] = e;
        if !entries[e].flags.has(Flags::SIDECHAIN) {
            last_main[f] = e;
        }
        if parent[e] != NONE {
            last_child_of[parent[e] as usize] = e as u32;
        }
    }
    let last_of_file = |file: FileId| {
        let f = file.0 as usize;
        [last_main[f], last_any[f]]
            .into_iter()
            .find(|&e| e != usize::MAX)
    };
    let main = entries[(0..n).find(|&e| node[e])?].file;
    let last = last_of_file(main)?;
    let rules = file_formats[entries[last].file.0 as usize].rules();
    let mut leaf = match by_id.get(&rules.leaf_target(&entries[last], interner)) {
        Some(&t) => EntryId(t),
        None => EntryId(last as u32),
    };
    let last_child =
        |p: EntryId| Some(last_child_of[p.index()] as usize).filter(|&c| c != NONE as usize);
    if last_child(leaf).is_none() {
        return Some(leaf);
    }
    if rules.follows_into_later_files() {
        while last_child_of[leaf.index()] != NONE {
            leaf = EntryId(last_child_of[leaf.index()]);
        }
        return Some(leaf);
    }
    // Each step moves to a later file's last node; a chain of files that
    // goes round stops.
    for _ in 0..file_formats.len() {
        let Some(end) = last_child(leaf).and_then(|c| last_of_file(entries[c].file)) else {
            break;
        };
        if end == leaf.index() {
            break;
        }
        leaf = EntryId(end as u32);
    }
    Some(leaf)
}

/// An entry type its format does not know (kept as is).
fn unknown_type(entry: &Entry, interner: &Interner) -> Diagnostic {
    let kind = interner.get(entry.kind);
    Diagnostic::at(
        entry,
        Severity::Info,
        DiagnosticKind::UnknownType,
        if entry.kind.is_none() {
            "entry has no \"type\" field (kept as is)".to_owned()
        } else {
            format!(
                "unknown entry type \"{}\" (kept as is)",
                String::from_utf8_lossy(kind)
            )
        },
    )
}

/// Makes parent links acyclic: the entry that closes a cycle becomes a root.
fn break_cycles(
    entries: &[Entry],
    node: &[bool],
    parent: &mut [u32],
    diagnostics: &mut Vec<Diagnostic>,
) {
    // Following parents that all come earlier in the file only ever goes
    // back: no cycle is possible (the common case, checked in one pass).
    if (0..parent.len()).all(|e| !node[e] || parent[e] == NONE || (parent[e] as usize) < e) {
        return;
    }
    // 0 = unseen, 1 = on the current walk, 2 = known to reach a root.
    let mut state = vec![0u8; parent.len()];
    let mut walk = Vec::new();
    for start in 0..parent.len() {
        if !node[start] || state[start] != 0 {
            continue;
        }
        let mut e = start as u32;
        loop {
            match state[e as usize] {
                2 => break,
                1 => {
                    // `e` is on the current walk: the cycle closes at the
                    // entry whose parent is `e`; cut that link.
                    let closing = *walk.last().expect("walk holds the entry pointing at e");
                    parent[closing as usize] = NONE;
                    let entry = &entries[closing as usize];
                    diagnostics.push(Diagnostic::at(entry, Severity::Warning, DiagnosticKind::ParentCycle, format!(
                            "parents form a cycle through line {}; link cut, entry treated as a root",
                            entries[e as usize].line
                        )));
                    break;
                }
                _ => {
                    state[e as usize] = 1;
                    walk.push(e);
                    match parent[e as usize] {
                        NONE => break,
                        p => e = p,
                    }
                }
            }
        }
        for w in walk.drain(..) {
            state[w as usize] = 2;
        }
    }
}

/// Entry by id symbol.
struct IdIndex(Vec<u32>);

impl IdIndex {
    fn get(&self, id: &Sym) -> Option<&u32> {
        if id.is_none() {
            return None;
        }
        self.0.get(id.index()).filter(|&&e| e != NONE)
    }
}
