//! What a finding is: its kind (`aws-access-key-id`, `email`…) and tier.
//!
//! Built-in kinds have fixed ids; kinds named by custom rules are appended
//! after them by [`Rules`](super::Rules).

use serde::Serialize;

/// How a kind of finding matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    /// A credential: whoever has it can act as its owner.
    Secret,
    /// Personal data (an email address, a phone number, a card).
    Pii,
    /// Identifying but often harmless (the user name in a home path).
    Optional,
}

impl Tier {
    /// The tier's name: `secret`, `pii` or `optional`.
    pub fn as_str(self) -> &'static str {
        match self {
            Tier::Secret => "secret",
            Tier::Pii => "pii",
            Tier::Optional => "optional",
        }
    }

    /// Parses `secret`, `pii` or `optional`.
    pub fn parse(name: &str) -> Option<Tier> {
        match name {
            "secret" => Some(Tier::Secret),
            "pii" => Some(Tier::Pii),
            "optional" => Some(Tier::Optional),
            _ => None,
        }
    }
}

/// A kind of finding, as an index into [`Rules::kinds`](super::Rules::kinds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KindId(pub u16);

/// A kind's name and tier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KindInfo {
    /// The kind's name (`aws-access-key-id`).
    pub name: String,
    /// How sensitive it is.
    pub tier: Tier,
}

macro_rules! builtin_kinds {
    ($($id:ident = $n:expr, $name:literal, $tier:ident;)*) => {
        /// The built-in kinds' ids.
        pub(crate) mod k {
            use super::KindId;
            $(pub const $id: KindId = KindId($n);)*
        }
        /// Name and tier of every built-in kind, by id.
        pub(crate) const BUILTIN: &[(&str, Tier)] = &[$(($name, Tier::$tier)),*];
    };
}

builtin_kinds! {
    OPENAI = 0, "openai-api-key", Secret;
    ANTHROPIC = 1, "anthropic-api-key", Secret;
    AWS_ACCESS_KEY_ID = 2, "aws-access-key-id", Secret;
    AWS_SECRET_ACCESS_KEY = 3, "aws-secret-access-key", Secret;
    AWS_SESSION_TOKEN = 4, "aws-session-token", Secret;
    GITHUB_TOKEN = 5, "github-token", Secret;
    GITHUB_FINE_GRAINED = 6, "github-fine-grained-pat", Secret;
    GITLAB = 7, "gitlab-pat", Secret;
    SLACK_TOKEN = 8, "slack-token", Secret;
    SLACK_WEBHOOK = 9, "slack-webhook-url", Secret;
    STRIPE = 10, "stripe-secret-key", Secret;
    GCP_API_KEY = 11, "gcp-api-key", Secret;
    GCP_SERVICE_ACCOUNT = 12, "gcp-service-account-key", Secret;
    GOOGLE_CLIENT_SECRET = 13, "google-oauth-client-secret", Secret;
    GOOGLE_ACCESS_TOKEN = 14, "google-oauth-access-token", Secret;
    AZURE_CLIENT_SECRET = 15, "azure-ad-client-secret", Secret;
    AZURE_STORAGE_KEY = 16, "azure-storage-account-key", Secret;
    PRIVATE_KEY = 17, "private-key-pem", Secret;
    JWT = 18, "jwt", Secret;
    HUGGINGFACE = 19, "huggingface-token", Secret;
    NPM = 20, "npm-token", Secret;
    PYPI = 21, "pypi-token", Secret;
    SENDGRID = 22, "sendgrid-api-key", Secret;
    TWILIO = 23, "twilio-api-key", Secret;
    TELEGRAM = 24, "telegram-bot-token", Secret;
    GROQ = 25, "groq-api-key", Secret;
    XAI = 26, "xai-api-key", Secret;
    DATABRICKS = 27, "databricks-token", Secret;
    DIGITALOCEAN = 28, "digitalocean-token", Secret;
    VAULT = 29, "vault-token", Secret;
    SENTRY = 30, "sentry-token", Secret;
    SHOPIFY = 31, "shopify-token", Secret;
    LINEAR = 32, "linear-api-key", Secret;
    PASSWORD = 33, "password-assignment", Secret;
    GENERIC_SECRET = 34, "generic-secret-assignment", Secret;
    DB_PASSWORD = 35, "db-connection-password", Secret;
    URL_BASIC_AUTH = 36, "url-basic-auth", Secret;
    BEARER = 37, "http-bearer-token", Secret;
    CURL_BASIC_AUTH = 38, "curl-basic-auth", Secret;
    URL_QUERY_TOKEN = 39, "url-query-token", Secret;
    EMAIL = 40, "email", Pii;
    PHONE = 41, "phone-number", Pii;
    CREDIT_CARD = 42, "credit-card", Pii;
    IBAN = 43, "iban", Pii;
    IPV4 = 44, "ipv4-public", Pii;
    IPV6 = 45, "ipv6-global", Pii;
    SSN = 46, "us-ssn", Pii;
    MAC = 47, "mac-address", Pii;
    HOME_USERNAME = 48, "home-username", Optional;
    HTTP_BASIC_AUTH = 49, "http-basic-auth", Secret;
    STRIPE_WEBHOOK = 50, "stripe-webhook-secret", Secret;
    DOCKER_PAT = 51, "docker-hub-pat", Secret;
    GRAFANA = 52, "grafana-service-account-token", Secret;
    AGE_KEY = 53, "age-secret-key", Secret;
    OPENROUTER = 54, "openrouter-api-key", Secret;
    POSTMAN = 55, "postman-api-key", Secret;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_positions_and_names_unique() {
        assert_eq!(BUILTIN[k::EMAIL.0 as usize].0, "email");
        assert_eq!(BUILTIN[k::POSTMAN.0 as usize].0, "postman-api-key");
        let mut names: Vec<&str> = BUILTIN.iter().map(|b| b.0).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), BUILTIN.len());
        let secrets = BUILTIN.iter().filter(|b| b.1 == Tier::Secret).count();
        let pii = BUILTIN.iter().filter(|b| b.1 == Tier::Pii).count();
        assert!(
            secrets >= 40 && pii == 8,
            "{secrets} secret, {pii} pii kinds"
        );
    }
}
