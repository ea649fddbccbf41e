//! `cargo xtask layers [CRATE_SRC_DIR…]`: the module graph of a crate
//! (retrace-core's and retrace-wasm's by default) has no cycle at any
//! depth, and no module imports upward.
//!
//! The rule is "declaration order is the layer order": in each folder
//! module (`lib.rs`, a `mod.rs`, or a file with a folder of children) the
//! children are declared bottom-up, and a module may use only the modules
//! declared before it. Precisely, for an import of module B from module A:
//!
//! - B inside A: allowed (a folder module is the top of its folder and
//!   uses its files: `migrate/mod.rs` runs `prepare` and the renderers);
//! - B an ancestor of A: allowed (a folder module is the base of its folder
//!   and its files build on its own items: `session/mod.rs` holds `Session`,
//!   `session/rows.rs` adds rows to it);
//! - otherwise, below their lowest common ancestor L, A lies in L's child
//!   `a` and B in L's child `b`: `b` must be declared before `a` in L.
//!
//! A folder module may be the base of its folder or its top, not both: the
//! cycle check (strongly connected components of the files' graph, and of
//! the graph with folders collapsed at each depth) rejects a `mod.rs` that
//! uses a file which uses it. With the sibling rule, that makes the graph
//! acyclic at every depth. Also: `src/` holds `lib.rs` plus at most two
//! other files.
//!
//! A re-export (`pub use`, `pub(crate) use`, …) is not an import: it is the
//! folder's face, and every path through it is followed to where the item
//! is defined. A re-exported name the module's own code uses is an import
//! like any other.
//!
//! An import is any path into the crate: `use` trees (groups, renames and
//! globs expanded) and the paths in code, types, impl headers and macro
//! arguments, each resolved to the module that *defines* the item, through
//! re-exports. Test code (`#[cfg(test)]`) may import anything and is
//! skipped.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use proc_macro2::{Spacing, TokenStream, TokenTree};
use syn::visit::{self, Visit};

use crate::root;

/// Beside `lib.rs`, `src/` may hold this many `.rs` files.
pub const MAX_TOP_FILES: usize = 2;

pub fn run(args: &[String]) -> Result<()> {
    if let Some(flag) = args.iter().find(|a| a.starts_with('-')) {
        bail!("`layers` takes only source folders (got `{flag}`)");
    }
    let dirs: Vec<PathBuf> = if args.is_empty() {
        vec![
            root().join("crates/retrace-core/src"),
            root().join("crates/retrace-wasm/src"),
        ]
    } else {
        args.iter().map(PathBuf::from).collect()
    };
    let mut failed = 0;
    for dir in &dirs {
        let report = check(dir)?;
        print!("{}", report.render());
        if !report.ok() {
            failed += 1;
        }
    }
    if failed > 0 {
        bail!("the module graph of {failed} crate(s) breaks its layering (see above)");
    }
    Ok(())
}

/// Runs every check on the crate whose sources are in `src`.
pub fn check(src: &Path) -> Result<Report> {
    let krate = Crate::load(src)?;
    let edges = krate.edges();
    let mut problems = Vec::new();
    for ((a, b), sites) in &edges {
        if let Some(why) = krate.violation(*a, *b) {
            problems.push((&sites[0], why, sites.len() - 1));
        }
    }
    problems.sort_by(|x, y| (&x.0.file, x.0.line).cmp(&(&y.0.file, y.0.line)));
    let problems = problems
        .into_iter()
        .map(|(site, why, more)| {
            let more = match more {
                0 => String::new(),
                1 => " (and 1 more place)".to_owned(),
                n => format!(" (and {n} more places)"),
            };
            format!("{}:{}: {} — {why}{more}", site.file, site.line, site.text)
        })
        .collect();
    let name = src
        .canonicalize()
        .ok()
        .and_then(|p| Some(p.parent()?.file_name()?.to_string_lossy().into_owned()))
        .unwrap_or_else(|| src.display().to_string());
    Ok(Report {
        name,
        modules: krate.modules.len(),
        imports: edges.len(),
        problems,
        cycles: krate.cycles(&edges),
        top_files: top_files(src)?,
    })
}

/// What [`check`] found.
pub struct Report {
    pub name: String,
    pub modules: usize,
    /// Distinct (importing module, defining module) pairs.
    pub imports: usize,
    /// One line per offending import: `file:line: path — why`.
    pub problems: Vec<String>,
    pub cycles: Vec<Cycle>,
    /// The `.rs` files at the top of `src/` other than `lib.rs`.
    pub top_files: Vec<String>,
}

/// A strongly connected component of the module graph at one depth.
pub struct Cycle {
    /// "modules", or "depth N" when deeper modules are collapsed into their
    /// ancestor at depth N.
    pub depth: String,
    pub members: Vec<String>,
    /// One shortest cycle through the first member, with a place that
    /// makes each of its steps: `a → b  (file:line: path)`.
    pub example: Vec<String>,
}

impl Report {
    pub fn ok(&self) -> bool {
        self.problems.is_empty() && self.cycles.is_empty() && self.top_files.len() <= MAX_TOP_FILES
    }

    pub fn render(&self) -> String {
        let mut out = String::new();
        let head = format!(
            "{}: {} modules, {} imports",
            self.name, self.modules, self.imports
        );
        if self.ok() {
            let _ = writeln!(out, "{head}, no cycle at any depth, no upward import");
            return out;
        }
        let _ = writeln!(
            out,
            "{head}: {} bad import(s), {} cycle(s)",
            self.problems.len(),
            self.cycles.len()
        );
        for p in &self.problems {
            let _ = writeln!(out, "  {p}");
        }
        for c in &self.cycles {
            let _ = writeln!(
                out,
                "  cycle ({}, {} modules): {}",
                c.depth,
                c.members.len(),
                c.members.join(", ")
            );
            for step in &c.example {
                let _ = writeln!(out, "      {step}");
            }
        }
        if self.top_files.len() > MAX_TOP_FILES {
            let _ = writeln!(
                out,
                "  src/ holds lib.rs and {} other files (at most {MAX_TOP_FILES}): {}",
                self.top_files.len(),
                self.top_files.join(", ")
            );
        }
        out
    }
}

/// The `.rs` files directly in `src`, except the crate root.
fn top_files(src: &Path) -> Result<Vec<String>> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(src).with_context(|| format!("reading {}", src.display()))? {
        let path = entry?.path();
        let name = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        if path.is_file() && name.ends_with(".rs") && name != "lib.rs" && name != "main.rs" {
            files.push(name);
        }
    }
    files.sort();
    Ok(files)
}

type ModId = usize;

struct Module {
    /// The path from the crate root (empty for the root).
    path: Vec<String>,
    parent: Option<ModId>,
    /// In declaration order.
    children: Vec<ModId>,
    /// The file holding the module's items, relative to `src/`, with `/`.
    file: String,
    inline: bool,
    /// Names of the items defined here (not modules, not imports).
    items: BTreeSet<String>,
    /// `use` names: name → path, as written, relative to this module.
    uses: HashMap<String, Vec<String>>,
    globs: Vec<Vec<String>>,
    /// The module each glob imports from (or the module defining the item
    /// whose variants it imports), once the tree is loaded.
    glob_targets: Vec<ModId>,
    refs: Vec<Ref>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum RefKind {
    Use,
    Path,
}

/// A path into (maybe) the crate, as written somewhere in a module.
struct Ref {
    segments: Vec<String>,
    line: usize,
    kind: RefKind,
}

/// Where an import is written.
#[derive(Clone)]
struct Site {
    file: String,
    line: usize,
    text: String,
}

struct Crate {
    modules: Vec<Module>,
}

/// What a name means in a module.
enum Found {
    Child(ModId),
    Item,
    /// An import: its path, relative to the module it is in.
    Import(Vec<String>),
}

/// What a path resolves to: a module itself, or an item defined in one.
#[derive(Clone, Copy)]
struct Target {
    module: ModId,
    is_module: bool,
}

impl Crate {
    fn load(src: &Path) -> Result<Crate> {
        let root_file = ["lib.rs", "main.rs"]
            .into_iter()
            .find(|f| src.join(f).is_file())
            .with_context(|| format!("{} has no lib.rs or main.rs", src.display()))?;
        let mut krate = Crate {
            modules: Vec::new(),
        };
        let root = krate.add(Vec::new(), None, root_file.to_owned(), false);
        let file = parse(src, root_file)?;
        let ctx = Dirs {
            children: PathBuf::new(),
            paths: PathBuf::new(),
        };
        krate.collect(src, root, &file.items, &ctx)?;
        // Glob targets are resolved before any glob is followed (so a glob
        // path may not go through another glob), which keeps lookups
        // through globs linear. A glob of an enum's variants (or of
        // something outside the crate) gets its own module: no lookup.
        let targets: Vec<Vec<ModId>> = (0..krate.modules.len())
            .map(|m| {
                let module = &krate.modules[m];
                let targets = module.globs.iter().map(|g| {
                    krate
                        .resolve(m, g, 0)
                        .filter(|t| t.is_module)
                        .map_or(m, |t| t.module)
                });
                targets.collect()
            })
            .collect();
        for (module, targets) in krate.modules.iter_mut().zip(targets) {
            module.glob_targets = targets;
        }
        Ok(krate)
    }

    fn add(
        &mut self,
        path: Vec<String>,
        parent: Option<ModId>,
        file: String,
        inline: bool,
    ) -> ModId {
        let id = self.modules.len();
        self.modules.push(Module {
            path,
            parent,
            children: Vec::new(),
            file,
            inline,
            items: BTreeSet::new(),
            uses: HashMap::new(),
            globs: Vec::new(),
            glob_targets: Vec::new(),
            refs: Vec::new(),
        });
        if let Some(p) = parent {
            self.modules[p].children.push(id);
        }
        id
    }

    /// Adds the items of module `m` (declared in `items`), and its child
    /// modules, recursively.
    fn collect(&mut self, src: &Path, m: ModId, items: &[syn::Item], dirs: &Dirs) -> Result<()> {
        for item in items {
            if is_test_only(item_attrs(item)) {
                continue;
            }
            match item {
                syn::Item::Mod(decl) => self.declare(src, m, decl, dirs)?,
                _ => {
                    if let Some(name) = item_name(item) {
                        self.modules[m].items.insert(name);
                    }
                    let mut refs = Refs::default();
                    refs.visit_item(item);
                    let module = &mut self.modules[m];
                    for (name, path) in refs.uses {
                        module.uses.entry(name).or_insert(path);
                    }
                    module.globs.extend(refs.globs);
                    module.refs.extend(refs.refs);
                }
            }
        }
        Ok(())
    }

    /// A `mod` item inside module `m`: inline, or in its own file.
    fn declare(&mut self, src: &Path, m: ModId, decl: &syn::ItemMod, dirs: &Dirs) -> Result<()> {
        let name = unraw(&decl.ident);
        let parent = &self.modules[m];
        if parent
            .children
            .iter()
            .any(|&c| self.modules[c].path.last() == Some(&name))
        {
            return Ok(()); // another `#[cfg]` of the same module
        }
        let mut path = parent.path.clone();
        path.push(name.clone());
        if let Some((_, items)) = &decl.content {
            let file = parent.file.clone();
            let child = self.add(path, Some(m), file, true);
            let inner = Dirs {
                children: dirs.children.join(&name),
                paths: dirs.children.join(&name),
            };
            return self.collect(src, child, items, &inner);
        }
        let (file, children) = if let Some(p) = path_attr(&decl.attrs) {
            let file = dirs.paths.join(p);
            let children = file.parent().map(Path::to_path_buf).unwrap_or_default();
            (file, children)
        } else {
            let flat = dirs.children.join(format!("{name}.rs"));
            let folder = dirs.children.join(&name).join("mod.rs");
            if src.join(&flat).is_file() {
                (flat, dirs.children.join(&name))
            } else if src.join(&folder).is_file() {
                (folder, dirs.children.join(&name))
            } else {
                bail!(
                    "{}: `mod {name};` but neither {} nor {} exists",
                    self.modules[m].file,
                    slashed(&flat),
                    slashed(&folder)
                );
            }
        };
        let rel = slashed(&file);
        let child = self.add(path, Some(m), rel.clone(), false);
        let parsed = parse(src, &rel)?;
        let inner = Dirs {
            paths: file.parent().map(Path::to_path_buf).unwrap_or_default(),
            children,
        };
        self.collect(src, child, &parsed.items, &inner)
    }

    fn name(&self, m: ModId) -> String {
        let path = &self.modules[m].path;
        if path.is_empty() {
            "crate".to_owned()
        } else {
            path.join("::")
        }
    }

    /// What `name` means in module `m`: a child module, an item, or an
    /// import (globs last, as in Rust).
    fn lookup(&self, m: ModId, name: &str, depth: u32) -> Option<Found> {
        let module = &self.modules[m];
        if let Some(&c) = module
            .children
            .iter()
            .find(|&&c| self.modules[c].path.last().map(String::as_str) == Some(name))
        {
            return Some(Found::Child(c));
        }
        if module.items.contains(name) {
            return Some(Found::Item);
        }
        if let Some(path) = module.uses.get(name) {
            return Some(Found::Import(path.clone()));
        }
        if depth > 16 {
            return None;
        }
        for (glob, &target) in module.globs.iter().zip(&module.glob_targets) {
            if target != m && self.lookup(target, name, depth + 1).is_some() {
                let mut path = glob.clone();
                path.push(name.to_owned());
                return Some(Found::Import(path));
            }
        }
        None
    }

    /// The module that defines what `path` (written in module `m`) names,
    /// following imports and re-exports; `None` for paths outside the crate
    /// (std, dependencies) and for local names.
    fn resolve(&self, m: ModId, path: &[String], depth: u32) -> Option<Target> {
        if depth > 32 || path.is_empty() {
            return None;
        }
        let mut cur = m;
        let mut rest = &path[1..];
        match path[0].as_str() {
            "crate" | "$crate" => cur = 0,
            "self" => {}
            "super" => cur = self.modules[m].parent?,
            first => match self.lookup(m, first, depth)? {
                Found::Child(c) => cur = c,
                Found::Item => {
                    return Some(Target {
                        module: m,
                        is_module: false,
                    })
                }
                Found::Import(mut to) => {
                    to.extend_from_slice(rest);
                    return self.resolve(m, &to, depth + 1);
                }
            },
        }
        while let Some((segment, after)) = rest.split_first() {
            rest = after;
            match segment.as_str() {
                "self" => continue,
                "super" => {
                    cur = self.modules[cur].parent?;
                    continue;
                }
                _ => {}
            }
            match self.lookup(cur, segment, depth) {
                Some(Found::Child(c)) => cur = c,
                Some(Found::Import(mut to)) => {
                    to.extend_from_slice(rest);
                    return self.resolve(cur, &to, depth + 1);
                }
                // An item here, or a name a macro defines here, or an
                // associated item or variant of one: defined in `cur`.
                Some(Found::Item) | None => {
                    return Some(Target {
                        module: cur,
                        is_module: false,
                    })
                }
            }
        }
        Some(Target {
            module: cur,
            is_module: true,
        })
    }

    /// Every import between two different modules, with the places that
    /// make it, in order.
    fn edges(&self) -> BTreeMap<(ModId, ModId), Vec<Site>> {
        let mut edges: BTreeMap<(ModId, ModId), Vec<Site>> = BTreeMap::new();
        for (m, module) in self.modules.iter().enumerate() {
            for r in &module.refs {
                let Some(target) = self.resolve(m, &r.segments, 0) else {
                    continue;
                };
                // A lone name that is a module can only be a local variable
                // that shadows it (a module is not a value).
                if r.kind == RefKind::Path && r.segments.len() == 1 && target.is_module {
                    continue;
                }
                if target.module == m {
                    continue;
                }
                edges.entry((m, target.module)).or_default().push(Site {
                    file: module.file.clone(),
                    line: r.line,
                    text: r.segments.join("::"),
                });
            }
        }
        for sites in edges.values_mut() {
            sites.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
            sites.dedup_by(|a, b| (&a.file, a.line) == (&b.file, b.line));
        }
        edges
    }

    fn ancestors(&self, m: ModId) -> Vec<ModId> {
        let mut out = vec![m];
        let mut cur = m;
        while let Some(p) = self.modules[cur].parent {
            out.push(p);
            cur = p;
        }
        out.reverse(); // root first
        out
    }

    /// Why module `a` may not import module `b`, if it may not.
    fn violation(&self, a: ModId, b: ModId) -> Option<String> {
        let up_a = self.ancestors(a);
        let up_b = self.ancestors(b);
        if up_b.contains(&a) {
            return None; // b is inside a
        }
        if up_a.contains(&b) {
            return None; // b is a folder a builds on (a cycle is caught apart)
        }
        let common = up_a.iter().zip(&up_b).take_while(|(x, y)| x == y).count();
        let l = up_a[common - 1];
        let (ca, cb) = (up_a[common], up_b[common]);
        let children = &self.modules[l].children;
        let pos = |c| children.iter().position(|&x| x == c);
        if pos(cb)? < pos(ca)? {
            return None;
        }
        let place = if self.modules[l].inline {
            format!("{} (in `mod {}`)", self.modules[l].file, self.name(l))
        } else {
            self.modules[l].file.clone()
        };
        Some(format!(
            "{} is declared after {} in {place} (upward import)",
            self.modules[cb].path.last()?,
            self.modules[ca].path.last()?,
        ))
    }

    /// The strongly connected components of the module graph, and of the
    /// graphs with modules collapsed into their ancestors at each depth,
    /// each set reported once (at the shallowest depth it shows).
    fn cycles(&self, edges: &BTreeMap<(ModId, ModId), Vec<Site>>) -> Vec<Cycle> {
        let max_depth = self.modules.iter().map(|m| m.path.len()).max().unwrap_or(0);
        let mut seen = BTreeSet::new();
        let mut out = Vec::new();
        for depth in 1..=max_depth {
            let node = |m: ModId| {
                let path = &self.modules[m].path;
                if path.is_empty() {
                    "crate".to_owned()
                } else {
                    path[..path.len().min(depth)].join("::")
                }
            };
            let mut graph: BTreeMap<String, BTreeMap<String, Site>> = BTreeMap::new();
            for (&(a, b), sites) in edges {
                let (na, nb) = (node(a), node(b));
                graph.entry(nb.clone()).or_default();
                if na != nb {
                    graph
                        .entry(na)
                        .or_default()
                        .entry(nb)
                        .or_insert_with(|| sites[0].clone());
                }
            }
            for members in tarjan(&graph) {
                if members.len() < 2 || !seen.insert(members.clone()) {
                    continue;
                }
                let example = shortest_cycle(&graph, &members)
                    .windows(2)
                    .map(|w| {
                        let site = &graph[&w[0]][&w[1]];
                        format!(
                            "{} → {}  ({}:{}: {})",
                            w[0], w[1], site.file, site.line, site.text
                        )
                    })
                    .collect();
                out.push(Cycle {
                    depth: if depth == max_depth {
                        "modules".to_owned()
                    } else {
                        format!("depth {depth}")
                    },
                    members: members.into_iter().collect(),
                    example,
                });
            }
        }
        out
    }
}

/// Strongly connected components (Tarjan's algorithm, iterative).
fn tarjan(graph: &BTreeMap<String, BTreeMap<String, Site>>) -> Vec<BTreeSet<String>> {
    let names: Vec<&String> = graph.keys().collect();
    let index_of: HashMap<&String, usize> =
        names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let succ: Vec<Vec<usize>> = names
        .iter()
        .map(|n| graph[*n].keys().map(|s| index_of[s]).collect())
        .collect();
    let n = names.len();
    let (mut index, mut low) = (vec![usize::MAX; n], vec![0; n]);
    let (mut on_stack, mut stack) = (vec![false; n], Vec::new());
    let mut next = 0;
    let mut out = Vec::new();
    for start in 0..n {
        if index[start] != usize::MAX {
            continue;
        }
        // (node, index of the next successor to visit)
        let mut work = vec![(start, 0)];
        while let Some(&mut (v, ref mut i)) = work.last_mut() {
            if *i == 0 {
                index[v] = next;
                low[v] = next;
                next += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            if let Some(&w) = succ[v].get(*i) {
                *i += 1;
                if index[w] == usize::MAX {
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut component = BTreeSet::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    component.insert(names[w].clone());
                    if w == v {
                        break;
                    }
                }
                out.push(component);
            }
        }
    }
    out
}

/// A shortest cycle through the first of `members`, staying inside them:
/// `[a, b, …, a]`.
fn shortest_cycle(
    graph: &BTreeMap<String, BTreeMap<String, Site>>,
    members: &BTreeSet<String>,
) -> Vec<String> {
    let Some(start) = members.first() else {
        return Vec::new();
    };
    let mut came_from: HashMap<&String, &String> = HashMap::new();
    let mut queue = VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for w in graph[v].keys().filter(|w| members.contains(*w)) {
            if w == start {
                let mut path = vec![start.clone(), v.clone()];
                let mut cur = v;
                while cur != start {
                    cur = came_from[cur];
                    path.push(cur.clone());
                }
                path.reverse();
                return path;
            }
            if !came_from.contains_key(w) {
                came_from.insert(w, v);
                queue.push_back(w);
            }
        }
    }
    Vec::new()
}

/// Where a module's children's files are, and what `#[path]` is relative
/// to, both relative to `src/`.
struct Dirs {
    children: PathBuf,
    paths: PathBuf,
}

fn parse(src: &Path, rel: &str) -> Result<syn::File> {
    let path = src.join(rel);
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    syn::parse_file(&text).with_context(|| format!("parsing {}", path.display()))
}

fn slashed(path: &Path) -> String {
    path.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

fn unraw(ident: &syn::Ident) -> String {
    let s = ident.to_string();
    s.strip_prefix("r#").map(str::to_owned).unwrap_or(s)
}

fn path_attr(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find_map(|a| match &a.meta {
        syn::Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    })
}

/// Whether the attributes compile their item only for tests:
/// `#[cfg(test)]`, or `#[cfg(all(…, test, …))]`.
fn is_test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        let syn::Meta::List(list) = &a.meta else {
            return false;
        };
        if !list.path.is_ident("cfg") {
            return false;
        }
        let mut tokens = list.tokens.clone().into_iter();
        match tokens.next() {
            Some(TokenTree::Ident(i)) if i == "test" => tokens.next().is_none(),
            Some(TokenTree::Ident(i)) if i == "all" => match tokens.next() {
                Some(TokenTree::Group(g)) => g
                    .stream()
                    .into_iter()
                    .collect::<Vec<_>>()
                    .split(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ','))
                    .any(|part| matches!(part, [TokenTree::Ident(i)] if i == "test")),
                _ => false,
            },
            _ => false,
        }
    })
}

fn item_attrs(item: &syn::Item) -> &[syn::Attribute] {
    use syn::Item as I;
    match item {
        I::Const(i) => &i.attrs,
        I::Enum(i) => &i.attrs,
        I::ExternCrate(i) => &i.attrs,
        I::Fn(i) => &i.attrs,
        I::ForeignMod(i) => &i.attrs,
        I::Impl(i) => &i.attrs,
        I::Macro(i) => &i.attrs,
        I::Mod(i) => &i.attrs,
        I::Static(i) => &i.attrs,
        I::Struct(i) => &i.attrs,
        I::Trait(i) => &i.attrs,
        I::TraitAlias(i) => &i.attrs,
        I::Type(i) => &i.attrs,
        I::Union(i) => &i.attrs,
        I::Use(i) => &i.attrs,
        _ => &[],
    }
}

/// The name an item defines in its module's namespace, if any.
fn item_name(item: &syn::Item) -> Option<String> {
    use syn::Item as I;
    let ident = match item {
        I::Const(i) => &i.ident,
        I::Enum(i) => &i.ident,
        I::ExternCrate(i) => i.rename.as_ref().map_or(&i.ident, |r| &r.1),
        I::Fn(i) => &i.sig.ident,
        I::Macro(i) => i.ident.as_ref()?,
        I::Static(i) => &i.ident,
        I::Struct(i) => &i.ident,
        I::Trait(i) => &i.ident,
        I::TraitAlias(i) => &i.ident,
        I::Type(i) => &i.ident,
        I::Union(i) => &i.ident,
        _ => return None,
    };
    Some(unraw(ident))
}

/// The paths an item writes, and the names its `use` items bring in.
#[derive(Default)]
struct Refs {
    refs: Vec<Ref>,
    uses: Vec<(String, Vec<String>)>,
    globs: Vec<Vec<String>>,
    /// Inside a `pub use`: names are recorded, no import is.
    reexport: bool,
}

impl Refs {
    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(unraw(&p.ident));
                self.use_tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                let (path, name) = if n.ident == "self" {
                    (prefix.clone(), prefix.last().cloned().unwrap_or_default())
                } else {
                    let mut path = prefix.clone();
                    path.push(unraw(&n.ident));
                    (path, unraw(&n.ident))
                };
                self.add_use(path, name, n.ident.span().start().line);
            }
            syn::UseTree::Rename(r) => {
                let mut path = prefix.clone();
                if r.ident != "self" {
                    path.push(unraw(&r.ident));
                }
                self.add_use(path, unraw(&r.rename), r.ident.span().start().line);
            }
            syn::UseTree::Glob(g) => {
                if prefix.is_empty() {
                    return;
                }
                self.globs.push(prefix.clone());
                if !self.reexport {
                    self.refs.push(Ref {
                        segments: prefix.clone(),
                        line: g.star_token.spans[0].start().line,
                        kind: RefKind::Use,
                    });
                }
            }
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.use_tree(prefix, t);
                }
            }
        }
    }

    fn add_use(&mut self, path: Vec<String>, name: String, line: usize) {
        if path.is_empty() {
            return;
        }
        if name != "_" {
            self.uses.push((name, path.clone()));
        }
        if self.reexport {
            return;
        }
        self.refs.push(Ref {
            segments: path,
            line,
            kind: RefKind::Use,
        });
    }

    /// Paths written in a macro's arguments, found in its tokens:
    /// `a::b::c` runs (and `$crate::…` in `macro_rules!` bodies).
    fn tokens(&mut self, tokens: TokenStream) {
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        let is_colons = |i: usize| {
            matches!(
                (tokens.get(i), tokens.get(i + 1)),
                (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)))
                    if a.as_char() == ':' && a.spacing() == Spacing::Joint && b.as_char() == ':'
            )
        };
        let mut i = 0;
        while i < tokens.len() {
            match &tokens[i] {
                TokenTree::Group(g) => {
                    self.tokens(g.stream());
                    i += 1;
                }
                TokenTree::Ident(ident) => {
                    let after_colons = i >= 2 && is_colons(i - 2);
                    let after_dot = i >= 1
                        && matches!(&tokens[i - 1], TokenTree::Punct(p) if p.as_char() == '.');
                    let dollar = i >= 1
                        && matches!(&tokens[i - 1], TokenTree::Punct(p) if p.as_char() == '$');
                    let mut segments = vec![if dollar && ident == "crate" {
                        "$crate".to_owned()
                    } else {
                        unraw(ident)
                    }];
                    let line = ident.span().start().line;
                    let mut j = i + 1;
                    while is_colons(j) {
                        match tokens.get(j + 2) {
                            Some(TokenTree::Ident(next)) => {
                                segments.push(unraw(next));
                                j += 3;
                            }
                            _ => break,
                        }
                    }
                    if !after_colons && !after_dot && (!dollar || ident == "crate") {
                        self.refs.push(Ref {
                            segments,
                            line,
                            kind: RefKind::Path,
                        });
                    }
                    i = j;
                }
                _ => i += 1,
            }
        }
    }
}

impl<'ast> Visit<'ast> for Refs {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        if is_test_only(item_attrs(item)) {
            return;
        }
        match item {
            syn::Item::Use(u) => {
                if u.leading_colon.is_none() {
                    // A re-export is the module's face, not its import: its
                    // names are followed, and count where code uses them.
                    self.reexport = !matches!(u.vis, syn::Visibility::Inherited);
                    self.use_tree(&mut Vec::new(), &u.tree);
                    self.reexport = false;
                }
            }
            // A module inside a function body: rare, and not in the tree.
            syn::Item::Mod(_) => {}
            _ => visit::visit_item(self, item),
        }
    }

    fn visit_impl_item(&mut self, item: &'ast syn::ImplItem) {
        let attrs = match item {
            syn::ImplItem::Const(i) => &i.attrs,
            syn::ImplItem::Fn(i) => &i.attrs,
            syn::ImplItem::Type(i) => &i.attrs,
            syn::ImplItem::Macro(i) => &i.attrs,
            _ => return visit::visit_impl_item(self, item),
        };
        if !is_test_only(attrs) {
            visit::visit_impl_item(self, item);
        }
    }

    fn visit_trait_item(&mut self, item: &'ast syn::TraitItem) {
        let attrs = match item {
            syn::TraitItem::Const(i) => &i.attrs,
            syn::TraitItem::Fn(i) => &i.attrs,
            syn::TraitItem::Type(i) => &i.attrs,
            syn::TraitItem::Macro(i) => &i.attrs,
            _ => return visit::visit_trait_item(self, item),
        };
        if !is_test_only(attrs) {
            visit::visit_trait_item(self, item);
        }
    }

    // Doc comments, derives and cfgs name no module of the crate, and a
    // `pub(in path)` or `pub(super)` is not an import.
    fn visit_attribute(&mut self, _: &'ast syn::Attribute) {}
    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {}

    fn visit_path(&mut self, path: &'ast syn::Path) {
        if path.leading_colon.is_none() {
            if let Some(first) = path.segments.first() {
                self.refs.push(Ref {
                    segments: path.segments.iter().map(|s| unraw(&s.ident)).collect(),
                    line: first.ident.span().start().line,
                    kind: RefKind::Path,
                });
            }
        }
        visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        visit::visit_macro(self, mac);
        self.tokens(mac.tokens.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A crate's `src/` written to a fresh temporary folder, removed on drop.
    struct Tree(PathBuf);

    impl Tree {
        fn new(files: &[(&str, &str)]) -> Tree {
            use std::sync::atomic::{AtomicUsize, Ordering};
            static NEXT: AtomicUsize = AtomicUsize::new(0);
            let dir = std::env::temp_dir().join(format!(
                "xtask-layers-{}-{}",
                std::process::id(),
                NEXT.fetch_add(1, Ordering::Relaxed)
            ));
            let src = dir.join("demo").join("src");
            for (name, text) in files {
                let path = src.join(name);
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(path, text).unwrap();
            }
            Tree(dir)
        }

        fn check(&self) -> Report {
            check(&self.0.join("demo/src")).unwrap()
        }
    }

    impl Drop for Tree {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// model ← read/{file ← reader} ← session, with re-exports at each level.
    const LAYERED: &[(&str, &str)] = &[
        (
            "lib.rs",
            "mod model;\nmod read;\nmod session;\n\
             pub use model::Entry;\npub use read::Reader;\npub use session::Session;\n",
        ),
        ("model.rs", "pub struct Entry;\n"),
        (
            "read/mod.rs",
            "mod file;\nmod reader;\npub use reader::Reader;\n\
             pub(crate) use file::FileInfo;\n",
        ),
        (
            "read/file.rs",
            "use crate::Entry;\npub struct FileInfo(pub Entry);\n",
        ),
        (
            "read/reader.rs",
            "use super::file::FileInfo;\npub struct Reader(Vec<FileInfo>);\n",
        ),
        (
            "session.rs",
            "use crate::{Entry, Reader};\n\
             pub struct Session { entries: Vec<Entry> }\n\
             impl Session {\n    pub fn open(r: Reader) -> Self {\n        \
             let _ = crate::read::FileInfo(crate::model::Entry);\n        \
             let _ = r;\n        Session { entries: vec![] }\n    }\n}\n",
        ),
    ];

    fn with(changes: &[(&'static str, &'static str)]) -> Vec<(&'static str, &'static str)> {
        let mut files: Vec<_> = LAYERED.to_vec();
        for &(name, text) in changes {
            files.retain(|(n, _)| *n != name);
            files.push((name, text));
        }
        files
    }

    #[test]
    fn a_layered_tree_passes() {
        let report = Tree::new(LAYERED).check();
        assert!(report.ok(), "{}", report.render());
        assert_eq!(report.modules, 6);
        // file → model, reader → file, session → model, reader and file;
        // the re-exports of lib.rs and read/mod.rs are no imports.
        assert_eq!(
            report.render(),
            "demo: 6 modules, 5 imports, no cycle at any depth, no upward import\n"
        );
    }

    #[test]
    fn an_upward_import_fails() {
        let report = Tree::new(&with(&[(
            "model.rs",
            "pub struct Entry;\nfn f() -> crate::Session { todo!() }\n",
        )]))
        .check();
        assert_eq!(
            report.problems,
            ["model.rs:2: crate::Session — session is declared after model in lib.rs (upward import)"]
        );
        assert!(!report.ok());
    }

    #[test]
    fn an_upward_import_below_the_root_fails() {
        let report = Tree::new(&with(&[(
            "read/file.rs",
            "use crate::Entry;\npub struct FileInfo(pub Entry);\n\
             fn f(_: &super::reader::Reader) {}\n",
        )]))
        .check();
        assert_eq!(
            report.problems,
            ["read/file.rs:3: super::reader::Reader — reader is declared after file in read/mod.rs (upward import)"]
        );
        // file ↔ reader
        assert_eq!(report.cycles.len(), 1);
        assert_eq!(report.cycles[0].members, ["read::file", "read::reader"]);
    }

    #[test]
    fn files_may_build_on_their_folder_module() {
        // `read/mod.rs` is the base of its folder: `reader` uses its
        // `Options`; its re-export of `Reader` is no import.
        let report = Tree::new(&with(&[
            (
                "read/mod.rs",
                "mod file;\nmod reader;\npub use reader::Reader;\n\
                 pub(crate) use file::FileInfo;\npub struct Options;\n",
            ),
            (
                "read/reader.rs",
                "use super::file::FileInfo;\nuse super::Options;\n\
                 pub struct Reader(Vec<FileInfo>, Options);\n",
            ),
        ]))
        .check();
        assert!(report.ok(), "{}", report.render());
    }

    #[test]
    fn a_folder_module_both_base_and_top_is_a_cycle() {
        // `read/mod.rs` uses `Reader` in its own code and `reader` uses
        // its `Options`.
        let report = Tree::new(&with(&[
            (
                "read/mod.rs",
                "mod file;\nmod reader;\npub use reader::Reader;\n\
                 pub(crate) use file::FileInfo;\npub struct Options;\n\
                 pub fn open() -> Reader { todo!() }\n",
            ),
            (
                "read/reader.rs",
                "use super::file::FileInfo;\nuse super::Options;\n\
                 pub struct Reader(Vec<FileInfo>, Options);\n",
            ),
        ]))
        .check();
        assert!(!report.ok());
        assert_eq!(report.cycles.len(), 1, "{}", report.render());
        assert_eq!(report.cycles[0].members, ["read", "read::reader"]);
    }

    #[test]
    fn a_two_cycle_fails_and_is_named() {
        let report = Tree::new(&[
            ("lib.rs", "mod a;\nmod b;\n"),
            ("a.rs", "use crate::b::B;\npub struct A(B);\n"),
            ("b.rs", "pub struct B;\nfn f(_: crate::a::A) {}\n"),
        ])
        .check();
        assert_eq!(
            report.problems,
            ["a.rs:1: crate::b::B — b is declared after a in lib.rs (upward import) (and 1 more place)"]
        );
        assert_eq!(report.cycles.len(), 1);
        let c = &report.cycles[0];
        assert_eq!(c.members, ["a", "b"]);
        assert_eq!(
            c.example,
            [
                "a → b  (a.rs:1: crate::b::B)",
                "b → a  (b.rs:2: crate::a::A)"
            ]
        );
        let text = report.render();
        assert!(text.contains("cycle (modules, 2 modules): a, b"), "{text}");
    }

    #[test]
    fn a_three_cycle_fails_and_is_named() {
        let report = Tree::new(&[
            ("lib.rs", "mod a;\nmod b;\nmod c;\n"),
            ("a.rs", "pub struct A;\nfn f() { let _ = crate::c::C; }\n"),
            ("b.rs", "use crate::a::A;\npub struct B(A);\n"),
            ("c.rs", "pub struct C;\nfn g(_: crate::b::B) {}\n"),
        ])
        .check();
        assert_eq!(
            report.problems,
            ["a.rs:2: crate::c::C — c is declared after a in lib.rs (upward import)"]
        );
        assert_eq!(report.cycles.len(), 1);
        assert_eq!(report.cycles[0].members, ["a", "b", "c"]);
        assert_eq!(report.cycles[0].example.len(), 3);
    }

    #[test]
    fn cycles_are_found_at_each_depth() {
        // x/p → y/q is allowed (x before y); y/r → x/s inside is upward.
        let report = Tree::new(&[
            ("lib.rs", "mod x;\nmod y;\n"),
            ("x/mod.rs", "mod s;\nmod p;\n"),
            ("x/s.rs", "pub struct S;\n"),
            ("x/p.rs", "pub fn p() { crate::y::q::Q; }\n"),
            ("y/mod.rs", "mod q;\nmod r;\n"),
            ("y/q.rs", "pub struct Q;\n"),
            ("y/r.rs", "pub fn r() { crate::x::s::S; }\n"),
        ])
        .check();
        assert_eq!(
            report.problems,
            ["x/p.rs:1: crate::y::q::Q — y is declared after x in lib.rs (upward import)"]
        );
        // No cycle between files, one between the folders.
        assert_eq!(report.cycles.len(), 1);
        assert_eq!(report.cycles[0].depth, "depth 1");
        assert_eq!(report.cycles[0].members, ["x", "y"]);
    }

    #[test]
    fn re_exports_are_followed_to_where_items_are_defined() {
        let report = Tree::new(&with(&[
            (
                "lib.rs",
                "mod model;\nmod read;\nmod session;\n\
                 pub use model::*;\npub use read::Reader;\npub use read::Reader as R;\n\
                 pub use session::Session;\n",
            ),
            ("model.rs", "pub struct Entry;\nfn f(_: crate::R) {}\n"),
        ]))
        .check();
        // crate::R → read::Reader → read::reader::Reader; crate::Entry
        // through the glob → model.
        assert_eq!(
            report.problems,
            ["model.rs:2: crate::R — read is declared after model in lib.rs (upward import)"]
        );
        let report = Tree::new(&with(&[("lib.rs", LAYERED[0].1)])).check();
        assert!(report.ok(), "{}", report.render());
    }

    #[test]
    fn test_code_is_ignored() {
        let report = Tree::new(&with(&[
            (
                "read/mod.rs",
                "mod file;\nmod reader;\n#[cfg(test)]\nmod test_util;\n\
                 pub use reader::Reader;\npub(crate) use file::FileInfo;\n",
            ),
            ("read/test_util.rs", "use crate::Session;\n"),
            (
                "model.rs",
                "pub struct Entry;\n\
                 #[cfg(test)]\nfn helper(_: crate::Session) {}\n\
                 #[cfg(all(test, feature = \"x\"))]\nuse crate::read::Reader;\n\
                 impl Entry {\n    #[cfg(test)]\n    fn t(&self) -> crate::Session { todo!() }\n}\n\
                 #[cfg(test)]\nmod tests {\n    use super::*;\n    use crate::session::Session;\n}\n",
            ),
        ]))
        .check();
        assert!(report.ok(), "{}", report.render());
        // `not(test)` is not test code.
        let report = Tree::new(&with(&[(
            "model.rs",
            "pub struct Entry;\n#[cfg(not(test))]\nuse crate::Session;\n",
        )]))
        .check();
        assert_eq!(report.problems.len(), 1, "{}", report.render());
    }

    #[test]
    fn paths_in_macros_inline_modules_and_locals() {
        let report = Tree::new(&[
            ("lib.rs", "mod a;\nmod b;\n"),
            (
                "a.rs",
                "pub mod rank {\n    pub const X: u8 = 1;\n}\n\
                 pub fn f(b: u8) -> u8 {\n    let rank = b;\n    rank + rank::X\n}\n",
            ),
            (
                "b.rs",
                "use crate::a;\npub fn g() {\n    \
                 assert_eq!(a::rank::X, 1);\n    println!(\"{}\", crate::a::f(2));\n}\n",
            ),
        ])
        .check();
        assert!(report.ok(), "{}", report.render());
        // b → a (the `use`), b → a::rank (in a macro); a → a::rank is
        // downward; the local `rank` is no import.
        assert_eq!(report.imports, 3);
        let report = Tree::new(&[
            ("lib.rs", "mod a;\nmod b;\n"),
            ("a.rs", "pub fn f() {\n    assert!(crate::b::G > 0);\n}\n"),
            ("b.rs", "pub const G: u8 = 1;\n"),
        ])
        .check();
        assert_eq!(
            report.problems,
            ["a.rs:2: crate::b::G — b is declared after a in lib.rs (upward import)"]
        );
    }

    #[test]
    fn folders_without_mod_rs_and_path_attributes() {
        // `read.rs` with `read/scan.rs`; `#[path]` relative to the file.
        let report = Tree::new(&[
            ("lib.rs", "mod model;\nmod read;\n"),
            (
                "model.rs",
                "#[path = \"model_impl/entry.rs\"]\nmod entry;\npub use entry::Entry;\n",
            ),
            ("model_impl/entry.rs", "pub struct Entry;\n"),
            ("read.rs", "mod scan;\npub use scan::scan;\n"),
            (
                "read/scan.rs",
                "pub fn scan() -> crate::model::Entry {\n    crate::model::Entry\n}\n\
                 fn up() { crate::read::scan(); }\n",
            ),
        ])
        .check();
        assert_eq!(report.modules, 5);
        // crate::read::scan is read's re-export of scan itself: no import.
        assert!(report.ok(), "{}", report.render());
        let report = Tree::new(&[
            ("lib.rs", "mod model;\nmod read;\n"),
            (
                "model.rs",
                "#[path = \"model_impl/entry.rs\"]\nmod entry;\n",
            ),
            (
                "model_impl/entry.rs",
                "pub fn f() { crate::read::scan::g(); }\n",
            ),
            ("read.rs", "mod scan;\n"),
            ("read/scan.rs", "pub fn g() {}\n"),
        ])
        .check();
        assert_eq!(
            report.problems,
            ["model_impl/entry.rs:1: crate::read::scan::g — read is declared after model in lib.rs (upward import)"]
        );
    }

    #[test]
    fn src_holds_lib_rs_and_at_most_two_files() {
        let files = [
            ("lib.rs", "mod a;\nmod b;\nmod c;\n"),
            ("a.rs", ""),
            ("b.rs", ""),
            ("c.rs", ""),
        ];
        let report = Tree::new(&files).check();
        assert!(!report.ok());
        assert!(report
            .render()
            .contains("src/ holds lib.rs and 3 other files (at most 2): a.rs, b.rs, c.rs"));
        let report = Tree::new(
            &[files[0], files[1], files[2]]
                .map(|(n, t)| (n, if n == "lib.rs" { "mod a;\nmod b;\n" } else { t })),
        )
        .check();
        assert!(report.ok(), "{}", report.render());
    }

    #[test]
    fn a_missing_module_file_is_an_error() {
        let tree = Tree::new(&[("lib.rs", "mod gone;\n")]);
        let err = check(&tree.0.join("demo/src")).err().unwrap();
        assert!(
            format!("{err:#}").contains("`mod gone;` but neither gone.rs nor gone/mod.rs exists")
        );
    }
}
