//! The two web tools (execution-web.md): the host configuration, the transport, the providers, the results.
//!
//! [`execute_web`] runs one call in upstream's order; `html/` holds what `web_fetch` makes of
//! fetched HTML, ported from upstream's libraries.

mod call;
mod credentials;
mod fetch;
mod host;
pub mod html;
mod http;
mod media;
mod provider;
mod results;
mod search;

pub use call::{WebCall, execute_web, provider_endpoint};
pub use host::{
    Endpoint, FetchProvider, Host, HostError, MAX_ABORT_AFTER_MS, Permission, Region,
    SearchProvider, Settings,
};
pub use results::{family_of, result_schemas};
