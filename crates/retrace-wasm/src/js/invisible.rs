//! Which characters `<retrace-player>` draws as marks (`player.js`): the
//! core's `is_invisible` (bidi controls, zero-width characters), so the
//! player, the viewer and the CLI agree on one list.

use wasm_bindgen::prelude::*;

/// Whether the character `code_point` is one a name shows as a mark.
#[wasm_bindgen(js_name = isInvisible)]
pub fn is_invisible(code_point: u32) -> bool {
    char::from_u32(code_point).is_some_and(retrace_core::is_invisible)
}
