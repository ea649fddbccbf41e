//! The rule set a redactor runs: the built-in rules, plus custom rules,
//! an allowlist and disabled kinds read from a configuration file (see
//! [`custom`](super::custom) for its format).

#[cfg(feature = "custom-rules")]
use aho_corasick::AhoCorasick;
#[cfg(feature = "custom-rules")]
use regex::bytes::Regex;

#[cfg(feature = "custom-rules")]
use super::hit::rank;
use super::hit::{resolve, Hit, Scanner};
use super::kind::{k, KindId, KindInfo, BUILTIN};
use super::{number, scanner};

/// A user-written rule: a regular expression, optionally gated by keywords.
#[cfg(feature = "custom-rules")]
#[derive(Debug, Clone)]
pub(crate) struct CustomRule {
    pub kind: KindId,
    pub regex: Regex,
    /// The capture group to replace (0 = the whole match).
    pub group: usize,
}

/// Built-in and custom rules, compiled; shared by every redactor that uses
/// them.
#[derive(Debug, Clone)]
pub struct Rules {
    pub(crate) kinds: Vec<KindInfo>,
    #[cfg(feature = "custom-rules")]
    pub(crate) custom: Vec<CustomRule>,
    /// Keywords of gated custom rules, and which rule each belongs to.
    #[cfg(feature = "custom-rules")]
    pub(crate) keywords: Option<AhoCorasick>,
    #[cfg(feature = "custom-rules")]
    pub(crate) keyword_rule: Vec<usize>,
    /// Custom rules without keywords (run on every string).
    #[cfg(feature = "custom-rules")]
    pub(crate) ungated: Vec<usize>,
    pub(crate) allow_values: Vec<Vec<u8>>,
    #[cfg(feature = "custom-rules")]
    pub(crate) allow_patterns: Vec<Regex>,
    pub(crate) disabled: Vec<bool>,
    /// Findings left in place one by one (`exceptions.rs`): (line, kind,
    /// value hash), sorted.
    pub(crate) allowed: Vec<(u64, KindId, u64)>,
    /// Kinds a review left in place that are still found, to be marked
    /// rather than replaced, by kind id (`exceptions.rs`); empty when none.
    pub(crate) marked_kinds: Vec<bool>,
    /// The exceptions (`allowed`, `marked_kinds`) are marked in place, not
    /// left as they are (`Rules::marking_exceptions`).
    pub(crate) mark_exceptions: bool,
    /// Whether any kind is disabled or allowlisted (the common case is
    /// neither, and then hits need no filtering).
    pub(crate) filters: bool,
}

impl Default for Rules {
    fn default() -> Self {
        Rules::builtin()
    }
}

/// A match in plain text: what [`Rules::scan_text`] returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextMatch {
    /// What was found.
    pub kind: KindId,
    /// Byte range in the text.
    pub span: std::ops::Range<usize>,
}

impl Rules {
    /// The built-in rules only.
    pub fn builtin() -> Rules {
        Rules {
            kinds: BUILTIN
                .iter()
                .map(|&(name, tier)| KindInfo {
                    name: name.to_owned(),
                    tier,
                })
                .collect(),
            #[cfg(feature = "custom-rules")]
            custom: Vec::new(),
            #[cfg(feature = "custom-rules")]
            keywords: None,
            #[cfg(feature = "custom-rules")]
            keyword_rule: Vec::new(),
            #[cfg(feature = "custom-rules")]
            ungated: Vec::new(),
            allow_values: Vec::new(),
            #[cfg(feature = "custom-rules")]
            allow_patterns: Vec::new(),
            disabled: vec![false; BUILTIN.len()],
            allowed: Vec::new(),
            marked_kinds: Vec::new(),
            mark_exceptions: false,
            filters: false,
        }
    }

    /// Every kind, indexed by [`KindId`]: the built-in ones, then those
    /// custom rules named.
    pub fn kinds(&self) -> &[KindInfo] {
        &self.kinds
    }

    /// The kind with this id.
    pub fn kind(&self, id: KindId) -> &KindInfo {
        &self.kinds[id.0 as usize]
    }

    /// The id of the kind called `name`.
    pub fn kind_id(&self, name: &str) -> Option<KindId> {
        self.kinds
            .iter()
            .position(|k| k.name == name)
            .map(|p| KindId(p as u16))
    }

    /// Every match in a plain text (no JSON decoding), merged and sorted.
    pub fn scan_text(&self, text: &[u8]) -> Vec<TextMatch> {
        let mut hits = Vec::new();
        self.scan(text, None, &mut hits);
        hits.iter()
            .map(|h| TextMatch {
                kind: h.kind,
                span: h.start..h.end,
            })
            .collect()
    }

    /// The hits in one decoded string, merged: built-in rules, then custom
    /// ones, less the allowlisted and disabled.
    pub(crate) fn scan(&self, s: &[u8], key: Option<&[u8]>, hits: &mut Vec<Hit>) {
        hits.clear();
        scanner::run(&mut Scanner::new(s, key, hits));
        #[cfg(feature = "custom-rules")]
        if !self.custom.is_empty() {
            self.scan_custom(s, hits);
        }
        self.filter_and_merge(s, hits);
    }

    /// The hits in the digits of one JSON integer under `key` (the number
    /// rules: cards, phones and SSNs by their key, PINs), less the
    /// allowlisted and disabled. Custom rules are for text and are not run
    /// here (a loose pattern would start taking counts).
    pub(crate) fn scan_number(&self, digits: &[u8], key: Option<&[u8]>, hits: &mut Vec<Hit>) {
        hits.clear();
        number::run(&mut Scanner::new(digits, key, hits));
        self.filter_and_merge(digits, hits);
    }

    fn filter_and_merge(&self, s: &[u8], hits: &mut Vec<Hit>) {
        if self.filters && !hits.is_empty() {
            hits.retain(|h| {
                let text = &s[h.start..h.end];
                !self
                    .disabled
                    .get(h.kind.0 as usize)
                    .copied()
                    .unwrap_or(false)
                    && !self.allow_values.iter().any(|v| v.as_slice() == text)
                    && !self.allow_pattern(text)
            });
        }
        resolve(s, hits);
    }

    #[cfg(feature = "custom-rules")]
    fn allow_pattern(&self, text: &[u8]) -> bool {
        self.allow_patterns.iter().any(|r| r.is_match(text))
    }

    #[cfg(not(feature = "custom-rules"))]
    fn allow_pattern(&self, _text: &[u8]) -> bool {
        false
    }

    #[cfg(feature = "custom-rules")]
    fn scan_custom(&self, s: &[u8], hits: &mut Vec<Hit>) {
        let mut active = vec![false; self.custom.len()];
        for &r in &self.ungated {
            active[r] = true;
        }
        if let Some(ac) = &self.keywords {
            for m in ac.find_overlapping_iter(s) {
                active[self.keyword_rule[m.pattern().as_usize()]] = true;
            }
        }
        for (rule, _) in self.custom.iter().zip(&active).filter(|(_, &a)| a) {
            for caps in rule.regex.captures_iter(s) {
                if let Some(m) = caps.get(rule.group) {
                    if m.start() < m.end() {
                        hits.push(Hit {
                            start: m.start(),
                            end: m.end(),
                            kind: rule.kind,
                            rank: rank::CUSTOM,
                        });
                    }
                }
            }
        }
    }

    /// Whether home-directory user names are redacted (on unless a
    /// configuration disables `home-username`).
    pub fn redacts_home_names(&self) -> bool {
        !self.disabled[k::HOME_USERNAME.0 as usize]
    }
}
