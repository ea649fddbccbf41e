//! Who a message is from, as a view heads it: `user`, `assistant`, `tool
//! result`, or what it is when its kind says more than its role (`user
//! (command)` for a slash command the harness wrote, `compaction
//! summary`, `user (injected)`). `retrace show` and the Markdown export
//! head messages with it; each paints or marks the side its own way.

use crate::model::harness::UserClass;
use crate::model::message::{Message, MessageKind, Role};

/// Which side of the conversation a heading belongs to, for a view to
/// mark it (a colour, a heading level).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// A person, or the harness on their side (a command, a shell line).
    User,
    /// The model.
    Assistant,
    /// A tool's result.
    Tool,
    /// Text injected by the harness without being recognised.
    Injected,
    /// Anything else: summaries, extension messages, events.
    Other,
}

/// A message's heading: who it is from, in words, and their side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Heading {
    /// `user`, `user (command)`, `compaction summary`, …
    pub who: String,
    /// Whose side it is on.
    pub side: Side,
}

impl Heading {
    /// The heading of `m`.
    pub fn of(m: &Message) -> Heading {
        let (who, side) = match (m.role, m.kind) {
            // What the harness wrote is named by what it is, not
            // "injected" (a model's message keeps its role: its pieces are
            // the context it was given).
            (role, _) if !m.harness.is_empty() && role != Role::Assistant => match m.user_class() {
                UserClass::Prompt => (role.as_str().to_owned(), Side::User),
                class => (
                    format!("{} ({})", role.as_str(), class.as_str()),
                    Side::User,
                ),
            },
            (_, MessageKind::CompactionSummary) => ("compaction summary".to_owned(), Side::Other),
            (_, MessageKind::BranchSummary) => ("branch summary".to_owned(), Side::Other),
            (_, MessageKind::BashExecution) => ("user shell command".to_owned(), Side::User),
            (_, MessageKind::Custom) => ("extension message".to_owned(), Side::Other),
            (role, MessageKind::Meta) => (format!("{} (injected)", role.as_str()), Side::Injected),
            (_, MessageKind::Marker) => ("event".to_owned(), Side::Other),
            (Role::Tool, _) => ("tool result".to_owned(), Side::Tool),
            (Role::User, _) => ("user".to_owned(), Side::User),
            (Role::Assistant, _) => ("assistant".to_owned(), Side::Assistant),
            (role, _) => (role.as_str().to_owned(), Side::Other),
        };
        Heading { who, side }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::harness::Piece;

    #[test]
    fn headings_say_what_a_message_is() {
        let mut m = Message::new(Role::User);
        assert_eq!(
            Heading::of(&m),
            Heading {
                who: "user".into(),
                side: Side::User
            }
        );
        m.harness = vec![Piece::Command {
            name: "/init".into(),
            args: String::new(),
        }];
        assert_eq!(Heading::of(&m).who, "user (command)");
        let mut m = Message::new(Role::User);
        m.kind = MessageKind::Meta;
        assert_eq!(
            Heading::of(&m),
            Heading {
                who: "user (injected)".into(),
                side: Side::Injected
            }
        );
        m.kind = MessageKind::CompactionSummary;
        assert_eq!(Heading::of(&m).who, "compaction summary");
        assert_eq!(Heading::of(&Message::new(Role::Tool)).side, Side::Tool);
        // A model's context pieces leave it the model's.
        let mut m = Message::new(Role::Assistant);
        m.harness = vec![Piece::Context {
            label: "settings".into(),
            text: "x".into(),
        }];
        assert_eq!(Heading::of(&m).side, Side::Assistant);
    }
}
