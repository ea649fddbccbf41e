//! Lines appended to a session file, the way agents append to their own:
//! one write at the end, no temporary file (an agent may hold the file
//! open and go on appending).

use std::io::{self, Write};
use std::path::Path;

use flate2::write::GzEncoder;
use flate2::Compression;

/// Appends `lines` to the file at `path` in one write. A gzipped file
/// (`gzip`: the reader found it so) takes them as a gzip member of their
/// own: readers inflate members one after another as one stream, and
/// plain text after the last member would be no gzip at all.
pub fn append_lines(path: &Path, lines: &[u8], gzip: bool) -> io::Result<()> {
    let bytes = if gzip {
        let mut gz = GzEncoder::new(Vec::new(), Compression::default());
        gz.write_all(lines)?;
        gz.finish()?
    } else {
        lines.to_vec()
    };
    let mut file = std::fs::OpenOptions::new().append(true).open(path)?;
    file.write_all(&bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load;
    use crate::open::OpenOptions;

    #[test]
    fn a_gzipped_file_takes_a_member_and_reads_as_one_stream() {
        let dir = std::env::temp_dir().join(format!("retrace-io-append-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let first = b"{\"event_type\":\"user_input\",\"data\":{\"message\":\"hi\"}}\n";
        let more = b"{\"event_type\":\"final_output\",\"data\":{\"output\":\"bye\"}}\n";
        let mut gz = GzEncoder::new(Vec::new(), Compression::default());
        gz.write_all(first).unwrap();
        let path = dir.join("events.jsonl.gz");
        std::fs::write(&path, gz.finish().unwrap()).unwrap();
        append_lines(&path, more, true).unwrap();
        let loaded = load(&path, &OpenOptions::default()).unwrap();
        assert_eq!(loaded.session.entries().len(), 2);
        assert!(
            loaded.session.diagnostics().is_empty(),
            "{:?}",
            loaded.session.diagnostics()
        );
        // A plain file takes the bytes as they are.
        let plain = dir.join("events.jsonl");
        std::fs::write(&plain, first).unwrap();
        append_lines(&plain, more, false).unwrap();
        assert_eq!(
            std::fs::read(&plain).unwrap(),
            [&first[..], &more[..]].concat()
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
