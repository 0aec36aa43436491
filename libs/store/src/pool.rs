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
