//! The first scan of a workspace, written as one pack instead of thousands
//! of loose objects. Each loose object is a file created and renamed: on a
//! slow file system (ext4 after many deletions, Windows with an
//! antivirus, a synced folder) creating 3,000 of them costs more than
//! hashing and compressing them. Here libgit2 stages into an in-memory
//! object database (a second handle on the shadow repository), and the
//! objects go to disk as one pack, without delta search, through libgit2's
//! indexer.

use std::io::Write;
use std::path::Path;

use flate2::write::ZlibEncoder;
use flate2::Compression;
use git2::{ObjectType, Oid, Repository, TreeWalkMode, TreeWalkResult};

use super::scan::{self, Skipped};
use crate::error::{StoreError, StoreResult};

/// What the first scan may hold in memory by default before it gives way
/// to the ordinary (loose) one.
pub(crate) const MEMORY_BUDGET: u64 = 512 << 20;

/// Scans the whole workspace into `main`'s index (empty so far) and
/// stores what it read as one pack. `None` when the workspace holds more
/// than `budget` bytes to add, or nothing: nothing was written, scan as
/// usual.
pub(crate) fn first_scan(
    main: &Repository,
    git_dir: &Path,
    workspace: &Path,
    max_size: u64,
    budget: u64,
) -> StoreResult<Option<(Oid, Vec<Skipped>)>> {
    let staging = Repository::open_bare(git_dir)?;
    staging.set_workdir(workspace, false)?;
    let odb = staging.odb()?;
    // Above the loose and pack backends: every write lands in memory.
    let _mempack = odb.add_new_mempack_backend(1000)?;
    let mut index = staging.index()?;
    let Some(skipped) = scan::stage_within(&mut index, workspace, max_size, budget)? else {
        return Ok(None);
    };
    if index.is_empty() {
        // Nothing to pack: the ordinary scan has as little to do.
        return Ok(None);
    }
    let tree = index.write_tree()?;

    // Every object of the tree, once (the index holds blobs only; trees
    // come from the walk). Blobs stored before, if any, are packed again:
    // harmless, and rare (an index rebuilt).
    let mut objects = vec![(tree, ObjectType::Tree)];
    let mut seen = std::collections::HashSet::from([tree]);
    staging
        .find_tree(tree)?
        .walk(TreeWalkMode::PreOrder, |_, entry| {
            if let Some(kind) = entry.kind() {
                if matches!(kind, ObjectType::Tree | ObjectType::Blob) && seen.insert(entry.id()) {
                    objects.push((entry.id(), kind));
                }
            }
            TreeWalkResult::Ok
        })?;

    let main_odb = main.odb()?;
    let mut writer = PackWriter::new(main_odb.packwriter()?);
    writer.header(objects.len())?;
    for (oid, kind) in &objects {
        let object = odb.read(*oid)?;
        writer.object(*kind, object.data())?;
    }
    writer.finish()?;
    main_odb.refresh()?;
    // Written only now that its objects are on disk.
    index.write()?;
    main.index()?.read(true)?;
    Ok(Some((tree, skipped)))
}

/// A pack (version 2, no deltas) streamed into libgit2's indexer, which
/// checks it, writes its `.idx` and moves both into `objects/pack`.
struct PackWriter<'odb> {
    out: git2::OdbPackwriter<'odb>,
    sha1: sha1_smol::Sha1,
}

impl<'odb> PackWriter<'odb> {
    fn new(out: git2::OdbPackwriter<'odb>) -> PackWriter<'odb> {
        PackWriter {
            out,
            sha1: sha1_smol::Sha1::new(),
        }
    }

    fn put(&mut self, bytes: &[u8]) -> StoreResult<()> {
        self.sha1.update(bytes);
        self.out.write_all(bytes).map_err(pack_error)
    }

    fn header(&mut self, count: usize) -> StoreResult<()> {
        let count = u32::try_from(count)
            .map_err(|_| StoreError::Git("too many objects for one pack".to_owned()))?;
        self.put(b"PACK")?;
        self.put(&2u32.to_be_bytes())?;
        self.put(&count.to_be_bytes())
    }

    fn object(&mut self, kind: ObjectType, data: &[u8]) -> StoreResult<()> {
        let code: u8 = match kind {
            ObjectType::Commit => 1,
            ObjectType::Tree => 2,
            ObjectType::Blob => 3,
            _ => 4,
        };
        // Type and size: 3 bits of type and 4 of size, then 7 bits of
        // size per byte, low bits first, the top bit saying "more".
        let mut size = data.len() as u64;
        let mut head = Vec::with_capacity(10);
        let mut byte = (code << 4) | (size & 0x0f) as u8;
        size >>= 4;
        while size > 0 {
            head.push(byte | 0x80);
            byte = (size & 0x7f) as u8;
            size >>= 7;
        }
        head.push(byte);
        self.put(&head)?;
        // Fast compression: this pack is written once per session, on
        // the agent's time.
        let mut z = ZlibEncoder::new(Vec::with_capacity(data.len() / 2 + 64), Compression::fast());
        z.write_all(data).map_err(pack_error)?;
        let compressed = z.finish().map_err(pack_error)?;
        self.put(&compressed)
    }

    fn finish(mut self) -> StoreResult<()> {
        let digest = self.sha1.digest().bytes();
        self.out.write_all(&digest).map_err(pack_error)?;
        self.out.commit()?;
        Ok(())
    }
}

fn pack_error(e: std::io::Error) -> StoreError {
    StoreError::Git(format!("cannot write the first checkpoint's pack: {e}"))
}
