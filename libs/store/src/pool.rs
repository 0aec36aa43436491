//! The connection pool the service and the tests share.

use deadpool_postgres::{Hook, HookError, Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};

use crate::StoreError;

/// The role the service works as: it may read and append events, never change them
/// (created by the first migration).
pub const APP_ROLE: &str = "warlog_app";
/// The login role the service connects as (schema V9): a member of [`APP_ROLE`] and
/// nothing more.
pub const SERVICE_LOGIN: &str = "warlog_service";

#[derive(Debug, Clone)]
pub struct PoolOptions {
    pub max_size: usize,
    /// The role each connection switches to (`SET ROLE`), when the login user may;
    /// `None` keeps the login user's own rights.
    pub role: Option<String>,
}

impl Default for PoolOptions {
    fn default() -> Self {
        PoolOptions {
            max_size: 16,
            role: Some(APP_ROLE.to_owned()),
        }
    }
}

/// Builds a pool on `config`. When the login user can take on the app role, every pooled
/// connection does, so the service itself cannot change a stored event even if a trigger
/// were dropped; otherwise it logs a warning and keeps the login user's rights.
pub async fn connect_pool(
    config: tokio_postgres::Config,
    options: &PoolOptions,
) -> Result<Pool, StoreError> {
    let role = match &options.role {
        Some(role) if can_set_role(&config, role).await? => Some(role.clone()),
        Some(role) => {
            tracing::warn!(
                role,
                "the database user cannot SET ROLE {role}; working with the login user's rights"
            );
            None
        }
        None => None,
    };
    let manager = Manager::from_config(
        config,
        crate::tls::connector().map_err(StoreError::Tls)?,
        ManagerConfig {
            recycling_method: RecyclingMethod::Fast,
        },
    );
    let mut builder = Pool::builder(manager)
        .max_size(options.max_size)
        .runtime(Runtime::Tokio1);
    if let Some(role) = role {
        let set_role = format!("SET ROLE \"{}\"", role.replace('"', "\"\""));
        builder = builder.post_create(Hook::async_fn(move |client, _| {
            let set_role = set_role.clone();
            Box::pin(async move {
                client
                    .batch_execute(&set_role)
                    .await
                    .map_err(HookError::Backend)
            })
        }));
    }
    builder
        .build()
        .map_err(|e| StoreError::Migration(format!("building the pool: {e}")))
}

async fn can_set_role(config: &tokio_postgres::Config, role: &str) -> Result<bool, StoreError> {
    let (client, connection) = config
        .connect(crate::tls::connector().map_err(StoreError::Tls)?)
        .await?;
    let task = tokio::spawn(connection);
    let row = client
        .query_one(
            "SELECT CASE WHEN EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)
                         THEN pg_has_role(current_user, $1, 'MEMBER') ELSE false END",
            &[&role],
        )
        .await;
    drop(client);
    let _ = task.await;
    Ok(row?.get(0))
}

/// The name a connection logged in as, when that login is a superuser's. A role switch
/// (`SET ROLE`) does not change it: a superuser's session can switch back, disable a
/// trigger or rewrite a stored event, so the service does not serve on one unless told to.
pub async fn superuser_login(
    client: &impl deadpool_postgres::GenericClient,
) -> Result<Option<String>, StoreError> {
    let row = client
        .query_one(
            "SELECT session_user::text, \
                    coalesce((SELECT rolsuper FROM pg_roles WHERE rolname = session_user), false)",
            &[],
        )
        .await?;
    let superuser: bool = row.get(1);
    Ok(superuser.then(|| row.get(0)))
}

/// Gives a login role its password, on the owner's connection. A utility statement takes
/// no parameters, so the server quotes both (`format`'s `%I` and `%L`).
pub async fn set_login_password(
    client: &impl deadpool_postgres::GenericClient,
    role: &str,
    password: &str,
) -> Result<(), StoreError> {
    let statement: String = client
        .query_one(
            "SELECT format('ALTER ROLE %I PASSWORD %L', $1::text, $2::text)",
            &[&role, &password],
        )
        .await?
        .get(0);
    client.batch_execute(&statement).await?;
    Ok(())
}
