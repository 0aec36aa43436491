//! Who may follow the league by webhook: an admin or a director subscribes (and reads
//! subscriptions); each sees and manages their own, an admin everyone's.

use warlog_events::refusal::Forbidden;
use warlog_events::sender::{Role, Sender};

/// Whether `sender` may subscribe, or read subscriptions; `what` names the act in the
/// refusal ("registering a webhook").
pub fn may_subscribe(sender: &Sender, what: &str) -> Result<(), Forbidden> {
    match sender.role {
        Role::Admin | Role::Director => Ok(()),
        role => Err(Forbidden::new(format!(
            "{what} needs the role admin or director; this token is a {role}"
        ))),
    }
}

/// Whose subscriptions `sender` sees: `None` everyone's (an admin), else their own.
pub fn owner_seen(sender: &Sender) -> Option<&str> {
    (sender.role != Role::Admin).then_some(sender.name.as_str())
}

/// Whether `sender` may see and manage the subscription `owner` made.
pub fn sees(sender: &Sender, owner: &str) -> bool {
    owner_seen(sender).is_none_or(|own| own == owner)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sender(role: Role, name: &str) -> Sender {
        Sender {
            role,
            name: name.to_owned(),
        }
    }

    #[test]
    fn admins_and_directors_subscribe_and_no_one_else_does() {
        // Given an admin or a director, when they subscribe, then they may
        for role in [Role::Admin, Role::Director] {
            assert_eq!(
                may_subscribe(&sender(role, "ann"), "registering a webhook"),
                Ok(())
            );
        }
        // Given any other role, when it subscribes, then it is forbidden, naming the act
        for role in [Role::Gm, Role::Player, Role::Auditor] {
            let refused =
                may_subscribe(&sender(role, "ann"), "registering a webhook").expect_err("refused");
            assert_eq!(
                refused.to_string(),
                format!("registering a webhook needs the role admin or director; this token is a {role}")
            );
        }
    }

    #[test]
    fn a_director_sees_their_own_subscriptions_and_an_admin_sees_everyones() {
        // Given a director and an admin
        let director = sender(Role::Director, "dora");
        let admin = sender(Role::Admin, "root");
        // Then the director sees only what they made, the admin everything
        assert!(sees(&director, "dora"));
        assert!(!sees(&director, "dan"));
        assert!(sees(&admin, "dan"));
        assert_eq!(owner_seen(&director), Some("dora"));
        assert_eq!(owner_seen(&admin), None);
    }
}
