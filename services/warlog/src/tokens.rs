//! `warlog token create|list|revoke`: bearer tokens, kept as hashes; the token itself is
//! shown once, when made.

use deadpool_postgres::GenericClient;
use warlog_api::auth::{issue_token_expiring, Role};
use warlog_store::tokens::{list_tokens, revoke_token};

use crate::cli::TokenCommand;
use crate::CliError;

/// Runs a token command; what it prints.
pub async fn run(client: &impl GenericClient, command: TokenCommand) -> Result<String, CliError> {
    match command {
        TokenCommand::Create {
            role,
            name,
            expires_in_days,
        } => {
            let role: Role = role.parse().map_err(CliError::Other)?;
            let token = issue_token_expiring(client, &name, role, expires_in_days)
                .await
                .map_err(|e| CliError::Other(e.detail))?;
            Ok(format!("{token}\n"))
        }
        TokenCommand::List => {
            let rows = list_tokens(client).await?;
            let mut out = format!(
                "{:<12}  {:<20}  {:<8}  {:<20}  {:<20}  {}\n",
                "id", "name", "role", "created", "expires", "revoked"
            );
            for row in rows {
                out.push_str(&format!(
                    "{:<12}  {:<20}  {:<8}  {:<20}  {:<20}  {}\n",
                    row.id,
                    row.name,
                    row.role,
                    row.created_at,
                    row.expires_at.as_deref().unwrap_or("never"),
                    row.revoked_at.as_deref().unwrap_or("-"),
                ));
            }
            Ok(out)
        }
        TokenCommand::Revoke { id } => {
            let id = id.trim().to_ascii_lowercase();
            if id.len() < 6 || !id.chars().all(|c| c.is_ascii_hexdigit()) {
                return Err(CliError::Other(format!(
                    "{id:?}: give at least six hex digits of a token's id (warlog token list)"
                )));
            }
            match revoke_token(client, &id).await? {
                1 => Ok(format!("revoked {id}\n")),
                0 => Err(CliError::Other(format!(
                    "no live token's id starts with {id}"
                ))),
                n => Err(CliError::Other(format!(
                    "{n} live tokens' ids start with {id}: give more of it"
                ))),
            }
        }
    }
}
