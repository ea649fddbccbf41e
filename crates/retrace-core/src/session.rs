//! A read session: its files, entries, branch tree and diagnostics.

use serde::Serialize;

use crate::diag::{Diagnostic, DiagnosticKind, Severity};
use crate::entry::{Entry, EntryId, FileId, Flags};
use crate::format::{FileCx, Format, Links, NONE};
use crate::intern::{Interner, Sym};
use crate::reader::Reader;
use crate::tree::Tree;

pub(crate) mod export;
pub(crate) mod preview;
pub(crate) mod search;
pub(crate) mod summary;

/// One input file of a session.
#[derive(Debug, Clone, Serialize)]
pub struct FileInfo {
    /// The name it was read under (a path, or a browser file name).
    pub name: String,
    /// Bytes read.
    pub size: u64,
    /// Lines read (a last line without a newline counts).
    pub lines: u32,
    /// Its entries are `first_entry..end_entry` of [`Session::entries`].
    pub first_entry: u32,
    pub end_entry: u32,
    /// False when the file's last line has no newline.
    pub line_ends_with_newline: bool,
    /// A side-car document attached with [`Reader::attach_meta`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub meta: Option<serde_json::Value>,
    /// When the file is one JSON document (an array, or an object with a
    /// `messages` array) rather than JSON lines: its other top-level fields
    /// and where its framed array's key is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub document: Option<crate::document::Document>,
    /// Set when the file was gzip: where to restart inflating it, for
    /// [`Inflated`](crate::Inflated). `size` and every offset are of the
    /// decompressed bytes.
    #[serde(skip)]
    pub gzip: Option<std::sync::Arc<crate::gzip::GzIndex>>,
    /// Where a part read by [`Reader::begin_part`] started.
    #[serde(skip)]
    pub(crate) part_start: u64,
    /// What the first entries look like, for format detection.
    #[serde(skip)]
    pub(crate) sniff: crate::format::sniff::Sniff,
}

/// A subagent run linked to the entry that spawned it.
#[derive(Debug, Clone, Serialize)]
pub struct Subagent {
    /// The file holding the subagent's entries.
    pub file: FileId,
    /// The agent id (`agentId`).
    pub agent_id: String,
    /// The tool-result entry in the parent conversation that reports its
    /// outcome (for Codex, the `spawn_agent` output that names it, or the
    /// last call before it began), where found.
    pub spawned_by: Option<EntryId>,
}

/// A session read by a [`Reader`]: the index of every entry and the branch
/// tree. Message bodies are not parsed until asked for (see
/// [`Session::context`]).
#[derive(Debug)]
pub struct Session {
    pub(crate) format: Format,
    pub(crate) file_formats: Vec<Format>,
    pub(crate) files: Vec<FileInfo>,
    pub(crate) entries: Vec<Entry>,
    pub(crate) interner: Interner,
    pub(crate) diagnostics: Vec<Diagnostic>,
    pub(crate) tree: Tree,
    pub(crate) subagents: Vec<Subagent>,
}

impl Session {
    /// Reads one whole file held in memory.
    pub fn from_bytes(name: &str, bytes: &[u8]) -> Session {
        let mut reader = Reader::new();
        reader.begin_file(name);
        reader.push(bytes);
        reader.finish()
    }

    /// The format of the session (of its first file).
    pub fn format(&self) -> Format {
        self.format
    }

    /// The format of each file.
    pub fn file_format(&self, file: FileId) -> Format {
        self.file_formats[file.0 as usize]
    }

    pub fn files(&self) -> &[FileInfo] {
        &self.files
    }

    /// Every entry, in file order (files in the order they were read).
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    pub fn entry(&self, e: EntryId) -> &Entry {
        &self.entries[e.index()]
    }

    pub fn tree(&self) -> &Tree {
        &self.tree
    }

    /// Problems found while reading, in file order.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// Subagent files linked to the conversation.
    pub fn subagents(&self) -> &[Subagent] {
        &self.subagents
    }

    /// The entry's `type` (empty for a broken line).
    pub fn kind(&self, e: EntryId) -> &str {
        std::str::from_utf8(self.interner.get(self.entry(e).kind)).unwrap_or("")
    }

    /// The entry's `subtype` (empty when absent).
    pub fn subtype(&self, e: EntryId) -> &str {
        std::str::from_utf8(self.interner.get(self.entry(e).subtype)).unwrap_or("")
    }

    /// The entry's `message.role` (empty when absent).
    pub fn role(&self, e: EntryId) -> &str {
        let role = std::str::from_utf8(self.interner.get(self.entry(e).role)).unwrap_or("");
        if role.is_empty() {
            // A format can say what an entry stands for (Gemini CLI types).
            if let Some(r) = self.rules_of(e).role(self, e) {
                return r;
            }
        }
        role
    }

    /// The entry's own id, if it has one.
    pub fn id(&self, e: EntryId) -> Option<&str> {
        let sym = self.entry(e).id;
        (!sym.is_none()).then(|| std::str::from_utf8(self.interner.get(sym)).unwrap_or(""))
    }

    /// The id to show for an entry: its own, or `L<line>` for entries
    /// without one (pi v1), prefixed by the file number for later files.
    pub fn label(&self, e: EntryId) -> String {
        let entry = self.entry(e);
        match self.id(e) {
            // An earlier version shares its id with the current one.
            Some(_) if entry.flags.has(Flags::REWRITTEN) => match entry.file.0 {
                0 => format!("L{}", entry.line),
                f => format!("F{f}L{}", entry.line),
            },
            Some(id) => id.to_owned(),
            None if entry.file.0 == 0 => format!("L{}", entry.line),
            None => format!("F{}L{}", entry.file.0, entry.line),
        }
    }

    /// Finds an entry by id or by a label from [`Session::label`].
    pub fn find(&self, id: &str) -> Option<EntryId> {
        let sym = self.interner.lookup(id.as_bytes());
        if !sym.is_none() {
            // The current version of a rewritten message, else the first
            // entry with the id.
            let with_id = |e: &Entry| e.id == sym;
            let found = self
                .entries
                .iter()
                .position(|e| with_id(e) && !e.flags.has(Flags::REWRITTEN))
                .or_else(|| self.entries.iter().position(with_id));
            if let Some(i) = found {
                return Some(EntryId(i as u32));
            }
        }
        let rest = id.strip_prefix(['F', 'L'])?;
        let (file, line): (u32, u32) = match id.starts_with('F') {
            true => {
                let (f, l) = rest.split_once('L')?;
                (f.parse().ok()?, l.parse().ok()?)
            }
            false => (0u32, rest.parse().ok()?),
        };
        self.entries
            .iter()
            .position(|e| u32::from(e.file.0) == file && e.line == line)
            .map(|i| EntryId(i as u32))
    }

    /// Builds the tree over what the reader indexed.
    pub(crate) fn build(reader: Reader) -> Session {
        let Reader {
            options,
            files,
            mut entries,
            interner,
            digests,
            mut diagnostics,
            ..
        } = reader;
        debug_assert!(
            entries.iter().all(|e| {
                ![e.id, e.parent, e.reference, e.group].contains(&crate::intern::Sym::PENDING)
            }),
            "the reader left an id uninterned"
        );
        let file_formats: Vec<Format> = files
            .iter()
            .map(|f| {
                let own = &entries[f.first_entry as usize..f.end_entry as usize];
                match options.format {
                    Some(named) => named.rules().forced(own, &interner),
                    None => Format::detect(f, own, &interner),
                }
            })
            .collect();
        // The session's format is its first file's, passing over empty files
        // (a Claude Code project folder can hold a 0-byte session).
        let format = files
            .iter()
            .zip(&file_formats)
            .find(|(info, _)| info.end_entry > info.first_entry)
            .or(files.iter().zip(&file_formats).next())
            .map_or(Format::Generic, |(_, &f)| f);
        // Read anyway, and say so (unless the user asked for plain JSON).
        for (f, info) in files.iter().enumerate() {
            let unrecognised = file_formats[f] == Format::Generic && options.format.is_none();
            if unrecognised && info.end_entry > info.first_entry {
                diagnostics.push(unknown_format(FileId(f as u16)));
            }
        }
        let n = entries.len();
        let mut links = Links {
            node: vec![false; n],
            parent: vec![NONE; n],
            parent_id: vec![Sym::NONE; n],
            flags: vec![0; n],
            current: vec![NONE; files.len()],
            diagnostics: Vec::new(),
        };
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

        // Each format marks its nodes and links them, file by file, then
        // across the files it was given together.
        for cx in &cxs {
            let rules = cx.format.rules();
            // Per type: 0 not asked yet, 1 known, 2 unknown.
            let mut known_kind: Vec<u8> = Vec::new();
            for entry in cx.own() {
                if entry.is_broken() {
                    continue;
                }
                let known = if entry.kind.is_none() {
                    rules.is_known_type(entry, &interner)
                } else {
                    let k = entry.kind.index();
                    if k >= known_kind.len() {
                        known_kind.resize(k + 1, 0);
                    }
                    if known_kind[k] == 0 {
                        known_kind[k] = 2 - u8::from(rules.is_known_type(entry, &interner));
                    }
                    known_kind[k] == 1
                };
                if !known {
                    diagnostics.push(unknown_type(entry, &interner));
                }
            }
            rules.link(cx, &mut links);
        }
        let mut seen: Vec<&'static str> = Vec::new();
        for cx in &cxs {
            let name = cx.format.name();
            if seen.contains(&name) {
                continue;
            }
            seen.push(name);
            let same: Vec<&FileCx> = cxs.iter().filter(|c| c.format.name() == name).collect();
            cx.format.rules().link_files(&same, &mut links);
        }

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
        // One file (the usual case): its rules, without reading every
        // entry for its file (a pass over the whole index, for formats
        // whose answers do not look at the entry).
        let only = match file_formats[..] {
            [one] => Some(one.rules()),
            _ => None,
        };
        let rules_of = |e: u32| {
            only.unwrap_or_else(|| file_formats[entries[e as usize].file.0 as usize].rules())
        };
        let tree = Tree::build(
            node,
            parent,
            default_leaf,
            |e, kids| {
                rules_of(e.0)
                    .is_real_fork(&mut kids.iter().map(|&c| &entries[c as usize]), &interner)
            },
            |c| rules_of(c.0).is_branch_start(&entries[c.index()], &interner),
        );
        diagnostics.sort_by_key(|d| (d.file, d.offset, d.line));
        let mut session = Session {
            format,
            file_formats,
            files,
            entries,
            interner,
            diagnostics,
            tree,
            subagents: Vec::new(),
        };
        let mut seen: Vec<&'static str> = Vec::new();
        for f in session.file_formats.clone() {
            if !seen.contains(&f.name()) {
                seen.push(f.name());
                let found = f.rules().subagents(&session);
                session.subagents.extend(found);
            }
        }
        session.check_timestamps();
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
            self.diagnostics.sort_by_key(|d| (d.file, d.offset, d.line));
        }
    }

    pub(crate) fn interner(&self) -> &Interner {
        &self.interner
    }
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
fn resolve_ids(cxs: &[FileCx], links: &mut Links, diagnostics: &mut Vec<Diagnostic>) -> IdIndex {
    let Some(first) = cxs.first() else {
        return IdIndex(Vec::new());
    };
    let (entries, interner) = (first.entries, first.interner);
    // Symbols are dense, so the id index is a plain vector.
    let mut by_id = IdIndex(vec![NONE; interner.len()]);
    for cx in cxs.iter().filter(|cx| cx.format.rules().ids_are_links()) {
        for e in cx.range() {
            let entry = &entries[e];
            if !links.node[e] || entry.id.is_none() {
                continue;
            }
            if let Some(&first) = by_id.get(&entry.id) {
                let first = &entries[first as usize];
                diagnostics.push(Diagnostic::at(
                    entry,
                    Severity::Warning,
                    DiagnosticKind::DuplicateId,
                    format!(
                        "id \"{}\" was already used on line {}; references go to that entry",
                        interner.str(entry.id),
                        first.line
                    ),
                ));
            } else {
                by_id.0[entry.id.index()] = e as u32;
            }
        }
    }
    for (e, entry) in entries.iter().enumerate() {
        let wanted = links.parent_id[e];
        if !links.node[e] || wanted.is_none() {
            continue;
        }
        match by_id.get(&wanted) {
            Some(&p) if p as usize != e => links.parent[e] = p,
            Some(_) => {
                diagnostics.push(Diagnostic::at(
                    entry,
                    Severity::Warning,
                    DiagnosticKind::ParentCycle,
                    "entry is its own parent; treated as a root",
                ));
            }
            None => diagnostics.push(Diagnostic::at(
                entry,
                Severity::Warning,
                DiagnosticKind::MissingParent,
                format!(
                    "parent \"{}\" is not in the session; entry treated as a root",
                    interner.str(wanted)
                ),
            )),
        }
    }
    by_id
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
    let last_of_file = |file: FileId| {
        let in_file = |e: usize| node[e] && entries[e].file == file;
        (0..n)
            .rev()
            .find(|&e| in_file(e) && !entries[e].flags.has(Flags::SIDECHAIN))
            .or_else(|| (0..n).rev().find(|&e| in_file(e)))
    };
    let main = entries[(0..n).find(|&e| node[e])?].file;
    let last = last_of_file(main)?;
    let rules = file_formats[entries[last].file.0 as usize].rules();
    let mut leaf = match by_id.get(&rules.leaf_target(&entries[last], interner)) {
        Some(&t) => EntryId(t),
        None => EntryId(last as u32),
    };
    let last_child = |p: EntryId| (0..n).rev().find(|&c| node[c] && parent[c] == p.0);
    if last_child(leaf).is_none() {
        return Some(leaf);
    }
    if rules.follows_into_later_files() {
        let mut last_child = vec![NONE; n];
        for (c, &p) in parent.iter().enumerate() {
            if node[c] && p != NONE {
                last_child[p as usize] = c as u32;
            }
        }
        while last_child[leaf.index()] != NONE {
            leaf = EntryId(last_child[leaf.index()]);
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
