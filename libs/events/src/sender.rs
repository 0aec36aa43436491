//! Who sends a command: a role and a name, as the bearer token says. The log records the
//! sender of every order batch (`OrdersGiven`) and the auditor checks, with
//! [`crate::game::GameLog::authorize`], that the sender was allowed to give it.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// What a token may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Admin,
    Director,
    Gm,
    Player,
    Auditor,
}

impl Role {
    pub const ALL: [Role; 5] = [
        Role::Admin,
        Role::Director,
        Role::Gm,
        Role::Player,
        Role::Auditor,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Admin => "admin",
            Role::Director => "director",
            Role::Gm => "gm",
            Role::Player => "player",
            Role::Auditor => "auditor",
        }
    }

    /// In words, for people: "the game master".
    pub fn describe(self) -> &'static str {
        match self {
            Role::Admin => "the admin",
            Role::Director => "the director",
            Role::Gm => "the game master",
            Role::Player => "the player",
            Role::Auditor => "the auditor",
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Role {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Role::ALL
            .into_iter()
            .find(|r| r.as_str() == s)
            .ok_or_else(|| format!("no role {s:?}; roles: admin, director, gm, player, auditor"))
    }
}

/// The sender of a command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sender {
    pub role: Role,
    pub name: String,
}

impl Sender {
    /// How the sender appears in event metadata (`player:ann`).
    pub fn actor(&self) -> String {
        format!("{}:{}", self.role, self.name)
    }

    /// The sender an event's `actor` names (`player:ann`), if it names one.
    pub fn from_actor(actor: &str) -> Option<Sender> {
        let (role, name) = actor.split_once(':')?;
        Some(Sender {
            role: role.parse().ok()?,
            name: name.to_owned(),
        })
    }
}

impl fmt::Display for Sender {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.role, self.name)
    }
}
