//! Publishing an uploaded ruleset: one `RulesetPublished` event per revision on the
//! `ruleset-<id>` stream, and the decision whether an upload is a new revision at all.

use serde::{Deserialize, Serialize};
use warlog_rules::document::RulesetDocument;

use crate::refusal::Forbidden;
use crate::{EventDecodeError, EventType};

/// The event type of a revision.
pub const PUBLISHED: &str = "RulesetPublished";

/// One revision of an uploaded ruleset.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RulesetPublished {
    pub hash: String,
    pub document: RulesetDocument,
}

impl RulesetPublished {
    pub fn encode(&self) -> Result<(EventType, u32, serde_json::Value), EventDecodeError> {
        let event_type = EventType::try_from(PUBLISHED.to_owned())
            .map_err(|e| EventDecodeError::Payload(e.to_string()))?;
        let payload =
            serde_json::to_value(self).map_err(|e| EventDecodeError::Payload(e.to_string()))?;
        Ok((event_type, 1, payload))
    }
}

/// The latest revision of a ruleset on record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LatestRevision {
    pub revision: u64,
    pub hash: String,
}

/// What an upload does.
#[derive(Debug, Clone)]
pub enum Publication {
    /// The same document as the latest revision: nothing to append.
    Unchanged { revision: u64 },
    /// A new revision, to append after `after` (none: the ruleset's first).
    Revision {
        after: Option<u64>,
        event: Box<RulesetPublished>,
    },
}

/// Whether `sender` may upload rulesets: an admin or a director (a ruleset decides every
/// game created with it, so the league's officers publish them).
pub fn may_publish(sender: &crate::sender::Sender) -> Result<(), Forbidden> {
    use crate::sender::Role;
    match sender.role {
        Role::Admin | Role::Director => Ok(()),
        role => Err(Forbidden::new(format!(
            "uploading a ruleset needs the role admin or director; this token is a {role}"
        ))),
    }
}

/// Decides an upload of `document` (whose hash is `hash`) against the latest revision.
pub fn publish(
    document: &RulesetDocument,
    hash: &str,
    latest: Option<&LatestRevision>,
) -> Publication {
    match latest {
        // A revision recorded before hashes were canonical carries the other hash.
        Some(latest) if latest.hash == hash || document.legacy_hash() == latest.hash => {
            Publication::Unchanged {
                revision: latest.revision,
            }
        }
        Some(_) | None => Publication::Revision {
            after: latest.map(|l| l.revision),
            event: Box::new(RulesetPublished {
                hash: hash.to_owned(),
                document: document.clone(),
            }),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn document() -> RulesetDocument {
        RulesetDocument::builtin_hashed("cutthroat")
            .expect("built in")
            .0
    }

    #[test]
    fn an_upload_identical_to_the_latest_revision_appends_nothing() {
        let latest = LatestRevision {
            revision: 3,
            hash: "abc".into(),
        };
        let decided = publish(&document(), "abc", Some(&latest));
        assert!(matches!(decided, Publication::Unchanged { revision: 3 }));
    }

    #[test]
    fn a_changed_upload_is_the_revision_after_the_latest() {
        let latest = LatestRevision {
            revision: 3,
            hash: "abc".into(),
        };
        let decided = publish(&document(), "def", Some(&latest));
        assert!(
            matches!(decided, Publication::Revision { after: Some(3), event } if event.hash == "def")
        );
    }

    #[test]
    fn an_upload_identical_to_a_revision_recorded_by_its_legacy_hash_appends_nothing() {
        let document = document();
        let latest = LatestRevision {
            revision: 2,
            hash: document.legacy_hash(),
        };
        let decided = publish(&document, &document.hash(), Some(&latest));
        assert!(matches!(decided, Publication::Unchanged { revision: 2 }));
    }

    #[test]
    fn a_first_upload_starts_the_stream() {
        let decided = publish(&document(), "abc", None);
        assert!(matches!(decided, Publication::Revision { after: None, .. }));
    }

    #[test]
    fn only_the_leagues_officers_publish_a_ruleset_and_anyone_else_is_told_which_roles_may() {
        use crate::sender::{Role, Sender};
        let token = |role| Sender {
            role,
            name: "ann".to_owned(),
        };
        // Given an admin and a director, when they publish, then they may
        for role in [Role::Admin, Role::Director] {
            assert_eq!(may_publish(&token(role)), Ok(()), "{role}");
        }
        // Given any other role, when it publishes, then it is forbidden in plain words
        for role in [Role::Gm, Role::Player, Role::Auditor] {
            let refused = may_publish(&token(role)).expect_err("not an officer");
            assert_eq!(
                refused.to_string(),
                format!(
                    "uploading a ruleset needs the role admin or director; this token is a {role}"
                )
            );
        }
    }
}
