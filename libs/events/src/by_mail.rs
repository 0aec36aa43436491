//! Turns by mail (issue 51): the pure part of playing by e-mail, decided from the game's
//! record alone, so the mail listener, the IMAP reader and the auditor agree.
//!
//! - [`token`]: the reply address `turn+TOKEN@domain`, whose token is a keyed MAC of the
//!   game, the turn, the power and the seat's player (the credential, as in GitHub's and
//!   GitLab's reply by e-mail).
//! - [`reply_text`]: the turn in a reply's text, with the quoted mail, the client's
//!   attribution line and the signature taken off, and whether it asks for a preview.
//! - [`intake`]: who is writing, and whether their mail may give the power's orders now.
//! - [`report`]: the turn report every player at the table receives, as a game master
//!   writes it: the orders, every die of every battle, the money, whose move is next.
//!
//! No IO here: the mail's headers, its DMARC verdict, the addresses on file and the time
//! come in as arguments.

pub mod intake;
pub mod reply_text;
pub mod report;
pub mod token;
