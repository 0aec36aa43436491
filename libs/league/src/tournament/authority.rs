//! Who may give a tournament's commands, decided from the record: an admin or a director
//! creates a tournament and directs it; its director (named in `TournamentCreated`) or an
//! admin gives every command; a player enters and drops only themself. The server refuses
//! anyone else (403, nothing appended), and the auditor, reading the sender from each
//! event's metadata, names a forged one.

use warlog_events::sender::{Role, Sender};

use super::{
    refuse, RefusalCode, Tournament, TournamentCommand, TournamentCreated, TournamentViolation,
};

impl TournamentCreated {
    /// Whether `sender` may create a tournament: an admin or a director, who directs it.
    pub fn may_create(sender: &Sender) -> Result<(), TournamentViolation> {
        match sender.role {
            Role::Admin | Role::Director => Ok(()),
            role => refuse(
                RefusalCode::Forbidden,
                format!(
                    "creating a tournament needs the role admin or director; {} is a {role}",
                    sender.name
                ),
            ),
        }
    }

    /// Whether this creation is `sender`'s: one who may create, named as its director.
    pub fn created_by(&self, sender: &Sender) -> Result<(), TournamentViolation> {
        TournamentCreated::may_create(sender)?;
        if sender.name != self.director {
            return refuse(
                RefusalCode::Forbidden,
                format!(
                    "{} created the tournament, yet {} is named its director: the creator \
                     directs it",
                    sender.name, self.director
                ),
            );
        }
        Ok(())
    }
}

impl Tournament {
    /// Whether `sender` may give `command` to this tournament.
    pub fn may_command(
        &self,
        sender: &Sender,
        command: &TournamentCommand,
    ) -> Result<(), TournamentViolation> {
        // A game's master holds no seat in it, and the director masters every game of the
        // tournament: entered, they would give orders for their opponents. Only an admin
        // may enter them, on the record.
        if let TournamentCommand::Enter { player } = command {
            if *player == self.created.director && sender.role != Role::Admin {
                return refuse(
                    RefusalCode::Forbidden,
                    format!(
                        "{player} directs this tournament and masters its games, so may not \
                         also play in it: a master seated in their own game would give orders \
                         for their opponents (only an admin may allow it)"
                    ),
                );
            }
        }
        if let TournamentCommand::Enter { player } | TournamentCommand::Drop { player } = command {
            if sender.role == Role::Player {
                if &sender.name == player {
                    return Ok(());
                }
                return refuse(
                    RefusalCode::Forbidden,
                    format!(
                        "{} may enter or drop only themself: {} directs this tournament and \
                         enters or drops others",
                        sender.name, self.created.director
                    ),
                );
            }
        }
        self.may_direct(sender)
    }

    /// Whether `sender` directs this tournament: its director, or an admin.
    pub fn may_direct(&self, sender: &Sender) -> Result<(), TournamentViolation> {
        match sender.role {
            Role::Admin => Ok(()),
            Role::Director if sender.name == self.created.director => Ok(()),
            _ => refuse(
                RefusalCode::Forbidden,
                format!(
                    "{} may not direct this tournament: {} directs it",
                    sender.name, self.created.director
                ),
            ),
        }
    }
}
