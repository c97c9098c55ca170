//! The route table: each operation is added once, as its handler with the `#[utoipa::path]` written
//! next to it, and that one entry both serves the route and documents it. The served routes and the
//! OpenAPI paths cannot disagree, because neither is written anywhere else.

use crate::ratelimit::SendRoute;
use crate::routes::fallback;
use crate::routes::query::DeclaredQuery;
use actix_web::http::Method;
use actix_web::{FromRequest, Handler, Responder, Route, web};
use utoipa::openapi::path::{HttpMethod, Operation, ParameterIn};
use utoipa::openapi::schema::Schema;
use utoipa::openapi::{OpenApi, RefOr};

/// The versioned API's scope; the operations outside it (health, the `/docs` page) are served as they
/// are documented, at the root.
const API_PREFIX: &str = "/api/v1";

type Schemas = Vec<(String, RefOr<Schema>)>;

/// What the `#[utoipa::path]` of one handler generates, besides its path and methods.
///
/// `utoipa::__dev` is what `#[derive(OpenApi)]` itself calls for the tags and the schemas a path
/// names; `Path::operation` alone carries neither. The snapshot test of `docs/openapi.json` notices if
/// a utoipa release changes what this assembles.
pub(crate) trait Documented:
    utoipa::Path + utoipa::__dev::SchemaReferences + for<'t> utoipa::__dev::Tags<'t>
{
}

impl<P> Documented for P where
    P: utoipa::Path + utoipa::__dev::SchemaReferences + for<'t> utoipa::__dev::Tags<'t>
{
}

/// One operation: where it is served, how it is documented, and the routes that serve it.
pub(crate) struct Entry {
    /// The annotation's path, the served path too.
    pub(crate) path: String,
    pub(crate) methods: Vec<HttpMethod>,
    /// A send: bounded by the organization's send rate, not the per-key write limit.
    send: bool,
    document: fn() -> (Operation, Schemas),
    routes: Vec<Route>,
    /// The handler's type name, so a test can tell it was added with its own annotation.
    #[cfg(test)]
    pub(crate) handler: &'static str,
    /// The annotation's type name (`…::__path_<handler>`).
    #[cfg(test)]
    pub(crate) documentation: &'static str,
}

#[cfg(test)]
impl Entry {
    /// The operation as documented, with its tags.
    pub(crate) fn operation(&self) -> Operation {
        (self.document)().0
    }
}

/// Every operation Herald's API serves, in the order they are matched.
#[derive(Default)]
pub(crate) struct Routes {
    entries: Vec<Entry>,
}

impl Routes {
    /// Adds `handler`, documented by `P`: its `__path_<handler>` type.
    pub(crate) fn add<P, F, Args>(self, handler: F) -> Self
    where
        P: Documented,
        F: Handler<Args>,
        Args: FromRequest + 'static,
        F::Output: Responder + 'static,
    {
        self.push::<P, F, Args>(handler, false)
    }

    /// Adds a send operation (see [`SendRoute`]).
    pub(crate) fn send<P, F, Args>(self, handler: F) -> Self
    where
        P: Documented,
        F: Handler<Args>,
        Args: FromRequest + 'static,
        F::Output: Responder + 'static,
    {
        self.push::<P, F, Args>(handler, true)
    }

    fn push<P, F, Args>(mut self, handler: F, send: bool) -> Self
    where
        P: Documented,
        F: Handler<Args>,
        Args: FromRequest + 'static,
        F::Output: Responder + 'static,
    {
        let methods = P::methods();
        let routes = methods
            .iter()
            .map(|method| web::route().method(actix_method(method)).to(handler.clone()))
            .collect();
        self.entries.push(Entry {
            path: P::path(),
            methods,
            send,
            document: document::<P>,
            routes,
            #[cfg(test)]
            handler: std::any::type_name::<F>(),
            #[cfg(test)]
            documentation: std::any::type_name::<P>(),
        });
        self
    }

    #[cfg(test)]
    pub(crate) fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Adds every operation's path and the schemas it names to `openapi`.
    pub(crate) fn document(&self, openapi: &mut OpenApi) {
        let mut schemas = Schemas::new();
        for entry in &self.entries {
            let (operation, named) = (entry.document)();
            openapi
                .paths
                .add_path_operation(&entry.path, entry.methods.clone(), operation);
            schemas.extend(named);
        }
        openapi
            .components
            .get_or_insert_with(Default::default)
            .schemas
            .extend(schemas);
    }

    /// Serves every operation: one resource per path (its other methods answer `method_not_allowed`),
    /// the `/api/v1` ones in a scope whose unknown paths answer `not_found`. Each resource keeps the query
    /// parameters its operations declare, so any other is refused (`crate::routes::query`).
    pub(crate) fn register(self, config: &mut web::ServiceConfig) {
        let mut resources: Vec<(String, bool, Vec<Route>, DeclaredQuery)> = Vec::new();
        for entry in self.entries {
            let declared = query_parameters(&(entry.document)().0);
            let index = match resources.iter().position(|(path, ..)| *path == entry.path) {
                Some(index) => index,
                None => {
                    resources.push((entry.path, false, Vec::new(), DeclaredQuery::default()));
                    resources.len() - 1
                }
            };
            let Some((_, send, routes, query)) = resources.get_mut(index) else {
                continue;
            };
            *send |= entry.send;
            routes.extend(entry.routes);
            for method in &entry.methods {
                query.declare(actix_method(method), declared.clone());
            }
        }
        let mut api = web::scope(API_PREFIX);
        let mut root = Vec::new();
        for (path, send, routes, query) in resources {
            let scoped = path
                .strip_prefix(API_PREFIX)
                .filter(|rest| rest.starts_with('/'))
                .map(str::to_owned);
            let mut resource = web::resource(scoped.as_deref().unwrap_or(&path))
                .default_service(web::to(fallback::method_not_allowed))
                .app_data(query);
            if send {
                resource = resource.app_data(SendRoute);
            }
            for route in routes {
                resource = resource.route(route);
            }
            if scoped.is_some() {
                api = api.service(resource);
            } else {
                root.push(resource);
            }
        }
        config.service(api.default_service(web::to(fallback::not_found)));
        for resource in root {
            config.service(resource);
        }
    }
}

/// The operation with its tags, and the schemas it names, as `#[derive(OpenApi)]` assembles them.
fn document<P: Documented>() -> (Operation, Schemas) {
    let mut operation = P::operation();
    operation
        .tags
        .get_or_insert_with(Vec::new)
        .extend(<P as utoipa::__dev::Tags>::tags().into_iter().map(str::to_owned));
    let mut schemas = Schemas::new();
    <P as utoipa::__dev::SchemaReferences>::schemas(&mut schemas);
    (operation, schemas)
}

/// The names of the query parameters `operation` declares.
fn query_parameters(operation: &Operation) -> Vec<String> {
    operation
        .parameters
        .iter()
        .flatten()
        .filter(|parameter| matches!(parameter.parameter_in, ParameterIn::Query))
        .map(|parameter| parameter.name.clone())
        .collect()
}

fn actix_method(method: &HttpMethod) -> Method {
    match method {
        HttpMethod::Get => Method::GET,
        HttpMethod::Post => Method::POST,
        HttpMethod::Put => Method::PUT,
        HttpMethod::Delete => Method::DELETE,
        HttpMethod::Options => Method::OPTIONS,
        HttpMethod::Head => Method::HEAD,
        HttpMethod::Patch => Method::PATCH,
        HttpMethod::Trace => Method::TRACE,
    }
}
