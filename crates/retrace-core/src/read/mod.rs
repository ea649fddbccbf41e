//! Reading: bytes pushed in chunks become an index of entries, without
//! parsing bodies. gzip is inflated, JSON lines and JSON documents are
//! framed, each object is scanned for its first two levels of keys, and the
//! keys the formats declared are lifted into an [`Entry`](crate::Entry).
//! Nothing here knows a format: the keys come in as a [`fields::KeyTable`].

pub(crate) mod crc32;
pub(crate) mod scan;
pub(crate) mod fields;
pub(crate) mod digest;
pub(crate) mod pending;
pub(crate) mod sniff;
pub(crate) mod gzip;
pub(crate) mod binary;
pub(crate) mod document;
pub(crate) mod framing;
pub(crate) mod file;
pub(crate) mod reader;
