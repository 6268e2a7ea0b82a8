//! Credentials (execution-web.md §1.2, §1.5): a non-empty variable, else the config key, else the missing-credential text.

use super::host::{FetchProvider, Host, SearchProvider};

/// Where a credential came from (`metadata.credentialSource`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    Env,
    Config,
}

impl Source {
    /// The name upstream writes.
    pub fn name(self) -> &'static str {
        match self {
            Source::Env => "env",
            Source::Config => "config",
        }
    }
}

/// A resolved credential.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Credential {
    pub value: String,
    pub source: Source,
}

/// Which credential a provider reads: its variable and its config field (§1.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Need {
    pub provider: &'static str,
    pub variable: &'static str,
    pub field: &'static str,
}

impl Need {
    /// `missing credential for <provider>: set <variable> or <config field>` (§1.5).
    pub fn missing(self) -> String {
        format!(
            "missing credential for {}: set {} or {}",
            self.provider, self.variable, self.field
        )
    }
}

/// The credential a search provider needs.
pub fn search_need(provider: SearchProvider) -> Need {
    let variable = match provider {
        SearchProvider::Exa => "EXA_API_KEY",
        SearchProvider::Brave => "BRAVE_API_KEY",
        SearchProvider::Zai => "ZAI_API_KEY",
    };
    Need {
        provider: provider.name(),
        variable,
        field: "web.search.apiKey",
    }
}

/// The credential a fetch provider needs; `native` needs none.
pub fn fetch_need(provider: FetchProvider) -> Option<Need> {
    let variable = match provider {
        FetchProvider::Native => return None,
        FetchProvider::Spider => "SPIDER_API_KEY",
        FetchProvider::Zai => "ZAI_API_KEY",
    };
    Some(Need {
        provider: provider.name(),
        variable,
        field: "web.fetch.apiKey",
    })
}

/// `resolveCredential`: the variable when non-empty, else the config key when non-empty.
pub fn resolve(host: &Host, need: Need, config_key: Option<&str>) -> Option<Credential> {
    if let Some(value) = host.var(need.variable).filter(|v| !v.is_empty()) {
        return Some(Credential {
            value: value.to_owned(),
            source: Source::Env,
        });
    }
    config_key.filter(|k| !k.is_empty()).map(|k| Credential {
        value: k.to_owned(),
        source: Source::Config,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_wins_and_empty_counts_as_unset() {
        let mut host = Host::default();
        let need = search_need(SearchProvider::Exa);
        assert_eq!(resolve(&host, need, None), None);
        assert_eq!(resolve(&host, need, Some("")), None);
        assert_eq!(
            resolve(&host, need, Some(" c ")).map(|c| (c.value, c.source)),
            Some((" c ".to_owned(), Source::Config))
        );
        host.env.push(("EXA_API_KEY".to_owned(), String::new()));
        assert_eq!(
            resolve(&host, need, Some("c")).map(|c| c.source),
            Some(Source::Config)
        );
        host.env.push(("EXA_API_KEY".to_owned(), "e".to_owned()));
        assert_eq!(
            resolve(&host, need, Some("c")).map(|c| (c.value, c.source)),
            Some(("e".to_owned(), Source::Env))
        );
    }

    #[test]
    fn missing_texts() {
        assert_eq!(
            search_need(SearchProvider::Brave).missing(),
            "missing credential for brave: set BRAVE_API_KEY or web.search.apiKey"
        );
        assert_eq!(
            search_need(SearchProvider::Zai).missing(),
            "missing credential for zai: set ZAI_API_KEY or web.search.apiKey"
        );
        assert_eq!(
            fetch_need(FetchProvider::Spider)
                .map(Need::missing)
                .as_deref(),
            Some("missing credential for spider: set SPIDER_API_KEY or web.fetch.apiKey")
        );
        assert_eq!(
            fetch_need(FetchProvider::Zai).map(Need::missing).as_deref(),
            Some("missing credential for zai: set ZAI_API_KEY or web.fetch.apiKey")
        );
        assert_eq!(fetch_need(FetchProvider::Native), None);
    }
}
