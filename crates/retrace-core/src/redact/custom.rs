//! Custom rules, allowlists and disabled kinds, as data. The caller reads
//! the file; this parses its bytes (TOML, or JSON when it starts with `{`):
//!
//! ```toml
//! disable = ["home-username"]          # built-in kinds to turn off
//!
//! [[rule]]
//! kind = "acme-api-key"                # a new kind, or a built-in one
//! pattern = 'acme_[a-z0-9]{32}'        # Rust regex syntax, over bytes
//! keywords = ["acme_"]                 # optional: run only if one occurs
//! tier = "secret"                      # secret (default), pii, optional
//! group = 1                            # optional: replace this capture group only
//!
//! [allow]
//! values = ["sk-test-fixture-0000"]    # exact matches that stay
//! patterns = ['^AKIA[A-Z0-9]{12}TEST$'] # regexes a whole match must fit
//! # single findings that stay: kind, 1-based line, FNV-1a 64 of the value
//! # (what the viewer's review exports, see `exceptions.rs`)
//! findings = [{ kind = "email", line = 12, hash = "85944171f73967e8" }]
//! ```

use aho_corasick::AhoCorasick;
use regex::bytes::RegexBuilder;
use serde::Deserialize;

use super::exceptions::{parse_hash, AllowedFinding, Exceptions};
use super::kind::{KindId, KindInfo, Tier};
use super::rules::{CustomRule, Rules};

/// A configuration that cannot be used, with where and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct RulesError(pub String);

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Config {
    #[serde(default, alias = "rules")]
    rule: Vec<RuleSpec>,
    #[serde(default)]
    allow: AllowSpec,
    #[serde(default)]
    disable: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleSpec {
    kind: String,
    pattern: String,
    #[serde(default)]
    keywords: Vec<String>,
    #[serde(default)]
    tier: Option<String>,
    #[serde(default)]
    group: Option<usize>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct AllowSpec {
    #[serde(default)]
    values: Vec<String>,
    #[serde(default)]
    patterns: Vec<String>,
    #[serde(default)]
    findings: Vec<FindingSpec>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FindingSpec {
    kind: String,
    line: u64,
    hash: String,
}

/// Patterns are compiled with a size limit so a configuration cannot make
/// a redactor use unbounded memory.
const REGEX_SIZE_LIMIT: usize = 4 << 20;

impl Rules {
    /// The built-in rules plus a configuration's custom rules, allowlist
    /// and disabled kinds. `config` is TOML, or JSON if it starts with `{`.
    pub fn with_config(config: &[u8]) -> Result<Rules, RulesError> {
        let text = std::str::from_utf8(config)
            .map_err(|e| RulesError(format!("not UTF-8 text (byte {})", e.valid_up_to())))?;
        let parsed: Config = if text.trim_start().starts_with('{') {
            serde_json::from_str(text).map_err(|e| {
                RulesError(format!("JSON line {} column {}: {e}", e.line(), e.column()))
            })?
        } else {
            toml::from_str(text).map_err(|e| toml_error(text, &e))?
        };
        let mut rules = Rules::builtin();
        for name in &parsed.disable {
            let id = rules
                .kind_id(name)
                .ok_or_else(|| RulesError(format!("disable: no kind named `{name}`")))?;
            rules.disabled[id.0 as usize] = true;
        }
        let mut keywords: Vec<String> = Vec::new();
        for (n, spec) in parsed.rule.iter().enumerate() {
            let at = format!("rule {} (kind `{}`)", n + 1, spec.kind);
            if spec.kind.is_empty() {
                return Err(RulesError(format!("rule {}: empty kind", n + 1)));
            }
            let tier = match &spec.tier {
                None => Tier::Secret,
                Some(t) => Tier::parse(t).ok_or_else(|| {
                    RulesError(format!("{at}: tier `{t}` is not secret, pii or optional"))
                })?,
            };
            let regex = RegexBuilder::new(&spec.pattern)
                .size_limit(REGEX_SIZE_LIMIT)
                .build()
                .map_err(|e| RulesError(format!("{at}: bad pattern: {e}")))?;
            let group = spec.group.unwrap_or(0);
            if group >= regex.captures_len() {
                return Err(RulesError(format!(
                    "{at}: group {group} does not exist (the pattern has {})",
                    regex.captures_len() - 1
                )));
            }
            let kind = match rules.kind_id(&spec.kind) {
                Some(id) => id,
                None => {
                    rules.kinds.push(KindInfo {
                        name: spec.kind.clone(),
                        tier,
                    });
                    rules.disabled.push(false);
                    KindId((rules.kinds.len() - 1) as u16)
                }
            };
            let index = rules.custom.len();
            rules.custom.push(CustomRule { kind, regex, group });
            if spec.keywords.is_empty() {
                rules.ungated.push(index);
            }
            for kw in &spec.keywords {
                if kw.is_empty() {
                    return Err(RulesError(format!("{at}: empty keyword")));
                }
                keywords.push(kw.clone());
                rules.keyword_rule.push(index);
            }
        }
        if !keywords.is_empty() {
            rules.keywords = Some(
                AhoCorasick::builder()
                    .ascii_case_insensitive(true)
                    .build(&keywords)
                    .map_err(|e| RulesError(format!("keywords: {e}")))?,
            );
        }
        rules.allow_values = parsed
            .allow
            .values
            .iter()
            .map(|v| v.as_bytes().to_vec())
            .collect();
        for (n, p) in parsed.allow.patterns.iter().enumerate() {
            let anchored = format!("^(?:{p})$");
            let regex = RegexBuilder::new(&anchored)
                .size_limit(REGEX_SIZE_LIMIT)
                .build()
                .map_err(|e| RulesError(format!("allow pattern {}: {e}", n + 1)))?;
            rules.allow_patterns.push(regex);
        }
        rules.filters = !rules.allow_values.is_empty()
            || !rules.allow_patterns.is_empty()
            || rules.disabled.iter().any(|&d| d);
        // After the custom rules: a finding may be of a kind they named.
        let mut findings = Vec::with_capacity(parsed.allow.findings.len());
        for (n, f) in parsed.allow.findings.iter().enumerate() {
            let hash = parse_hash(&f.hash).ok_or_else(|| {
                RulesError(format!(
                    "allow finding {}: hash `{}` is not 16 hex digits",
                    n + 1,
                    f.hash
                ))
            })?;
            findings.push(AllowedFinding {
                kind: f.kind.clone(),
                line: f.line,
                hash,
            });
        }
        let exceptions = Exceptions {
            kinds: Vec::new(),
            findings,
        };
        rules.with_exceptions(&exceptions).map_err(RulesError)
    }
}

/// `TOML line N: message` from a toml error.
fn toml_error(text: &str, e: &toml::de::Error) -> RulesError {
    let line = e
        .span()
        .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
    match line {
        Some(l) => RulesError(format!("TOML line {l}: {}", e.message())),
        None => RulesError(format!("TOML: {}", e.message())),
    }
}
