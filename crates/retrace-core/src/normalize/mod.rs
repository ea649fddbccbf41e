//! Message bodies (parsed lazily with serde_json) turned into [`Message`]s.
