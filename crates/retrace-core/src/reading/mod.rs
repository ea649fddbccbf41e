//! What a person reads: who a message is from ([`Heading`]), tool calls as
//! their tools ([`ToolView`]), their results taken apart ([`ToolOutput`],
//! with the streams a file keeps apart:
//! [`Session::result_streams`](crate::Session::result_streams)) and how
//! their runs ended ([`ToolOutput::status`]), each call paired with its result
//! ([`pair_calls`], [`Session::row_pairing`](crate::Session::row_pairing)),
//! edits as diffs, terminal output's colours ([`ansi`]) and untrusted text
//! with its bidi controls and zero-width characters made visible ([`visible`]); two branches
//! aligned row by row and what a compaction hid
//! ([`Session::compare`](crate::Session::compare)). Format facts every
//! view shares, so the viewer and `retrace show` show the same blocks;
//! drawing them is each view's own.

pub mod ansi;
mod visible;
mod heading;
mod diff;
mod tool;
mod output;
mod streams;
mod pairs;
mod compare;

pub use compare::{Aligned, Alignment, Comparison, COMPARED};
pub use diff::{lines as diff_lines, of_tool_call as diff_of_tool_call, Line as DiffLine};
pub use heading::{Heading, Side};
pub use output::{duration_text, Status, Tone, ToolOutput};
pub use pairs::{pair_calls, Pair, ResultImage, RowPairing, RowResult, PAIRING_REACH};
pub use tool::{command_of_argv, language_of, value_text, ToolView};
pub use visible::{is_invisible, push_visible, visible};
