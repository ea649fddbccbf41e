//! The viewer's files (`cargo xtask dist`'s `dist/`), served from memory
//! under `/view/`: the CLI embeds them at build time and hands them in.

/// The viewer's files by name (`index.html`, its wasm, JS, stylesheet,
/// `worker.js`).
#[derive(Debug, Clone, Default)]
pub struct Viewer {
    files: Vec<(&'static str, &'static [u8])>,
}

impl Viewer {
    pub fn new(files: &[(&'static str, &'static [u8])]) -> Viewer {
        Viewer {
            files: files.to_vec(),
        }
    }

    /// A file by its name, if the viewer has one so named.
    pub fn file(&self, name: &str) -> Option<&'static [u8]> {
        self.files.iter().find(|(n, _)| *n == name).map(|(_, b)| *b)
    }
}
