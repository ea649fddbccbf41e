//! The viewer `cargo xtask dist` built, inside the binary when it was
//! built with `RETRACE_VIEWER_DIST` (see `build.rs`): the open page of
//! `export --html` (`dist/export.html`: the viewer's page with its parts,
//! to which the export adds the session's files), and the viewer's own
//! files, which `retrace serve` serves.

use crate::errors::InputError;

include!(concat!(env!("OUT_DIR"), "/viewer.rs"));

/// The embedded open page, or why there is none.
pub(crate) fn page() -> Result<&'static [u8], InputError> {
    PAGE.ok_or_else(|| {
        InputError::new(
            "this retrace was built without the viewer, so it cannot write HTML: \
             build the viewer (`cargo xtask dist`), then retrace with it \
             (`RETRACE_VIEWER_DIST=$PWD/dist cargo build --release`)",
        )
    })
}

/// The viewer's files by name, for `retrace serve`, or why there are none.
#[cfg_attr(not(feature = "serve"), allow(dead_code))]
pub(crate) fn files() -> Result<&'static [(&'static str, &'static [u8])], InputError> {
    FILES.ok_or_else(|| {
        InputError::new(
            "this retrace was built without the viewer, so it cannot serve sessions: \
             build the viewer (`cargo xtask dist`), then retrace with it \
             (`RETRACE_VIEWER_DIST=$PWD/dist cargo build --release`)",
        )
    })
}
