//! A dice table given/when/then: rolls within bounds from the committed seed, a reveal
//! that begins a new epoch, and an audit that recomputes every die and names a changed one.

use super::*;

const TABLE: &str = "c0ffee";

fn seed(byte: u8) -> GameSeed {
    GameSeed::from_bytes([byte; 32])
}

fn at(seconds: u64) -> Moment {
    Moment::from_unix_seconds(seconds)
}

/// The first fault an audit of `events` finds, in words, or what it checked.
fn audit(
    table: &str,
    events: &[DiceTableEvent],
    public_key: Option<&[u8]>,
) -> Result<DiceTableAudit, String> {
    let (found, findings) = audit_findings(table, events, public_key);
    match findings.first() {
        Some(first) => Err(first.to_string()),
        None => Ok(found),
    }
}

fn keys() -> DiceKeys {
    DiceKeys::from_secrets([3; 32], [4; 32]).expect("keys")
}

/// A day: the idle time after which anyone may have a table's seed revealed, in these tests.
const IDLE: u64 = 86_400;

/// `table`'s seed revealed by the link mailed with its rolls, the next epoch under `next`.
fn revealed_by_link(
    table: &DiceTable,
    seed: &GameSeed,
    next: &GameSeed,
    now: u64,
) -> Vec<DiceTableEvent> {
    let link = RevealAsked::ByLink(keys().reveal_token(&table.table, table.epoch));
    table
        .reveal(&link, &keys(), IDLE, (seed, next), at(now))
        .expect("reveals")
}

/// A table opened under `seed(1)`, rolled `rolls` times (2d6, 1d20, 3d12 in turn).
fn rolled(rolls: usize) -> Vec<DiceTableEvent> {
    let mut events = open(&seed(1), at(0));
    let asked = [(2, 6), (1, 20), (3, 12)];
    for i in 0..rolls {
        let table = DiceTable::fold(TABLE, &events).expect("folds");
        let asked = DiceAsked::try_from(asked[i % asked.len()]).expect("in bounds");
        events.extend(
            table
                .roll(asked, &seed(1), &keys(), at(i as u64), None)
                .expect("rolls"),
        );
    }
    events
}

#[test]
fn a_roll_gives_as_many_dice_as_asked_each_from_one_to_its_sides() {
    // Given a table opened under a seed
    let table = DiceTable::fold(TABLE, &open(&seed(1), at(0))).expect("folds");
    // When 50 dice of 20 sides are asked for
    let asked = DiceAsked::try_from((50, 20)).expect("in bounds");
    let events = table
        .roll(asked, &seed(1), &keys(), at(5), None)
        .expect("rolls");
    // Then 50 dice fall, each 1 to 20
    let [DiceTableEvent::DiceRolled {
        dice,
        times,
        max,
        epoch,
        ..
    }] = events.as_slice()
    else {
        panic!("one roll: {events:?}");
    };
    assert_eq!((*times, *max, *epoch), (50, 20, 1));
    assert_eq!(dice.len(), 50);
    assert!(dice.iter().all(|d| (1..=20).contains(d)));
}

#[test]
fn the_same_seed_table_and_place_give_the_same_dice_and_the_next_roll_others() {
    let events = rolled(4);
    let again = rolled(4);
    assert_eq!(events, again);
    let dice = |e: &DiceTableEvent| match e {
        DiceTableEvent::DiceRolled { dice, .. } => dice.clone(),
        _ => Vec::new(),
    };
    assert_ne!(
        dice(&events[1]),
        dice(&events[4]),
        "rolls 1 and 4 ask alike, fall apart"
    );
}

#[test]
fn a_roll_outside_the_bounds_is_refused_saying_the_bounds() {
    for (times, max, says) in [
        (0, 6, "a roll is 1 to 5000 dice"),
        (5001, 6, "a roll is 1 to 5000 dice"),
        (2, 0, "a die has 1 to 5000 sides"),
        (2, 5001, "a die has 1 to 5000 sides"),
    ] {
        let refused = DiceAsked::try_from((times, max)).expect_err("out of bounds");
        assert!(refused.contains(says), "{refused}");
    }
    for bound in [(1, 1), (5000, 5000)] {
        assert!(
            DiceAsked::try_from(bound).is_ok(),
            "{bound:?}: the official server's bounds"
        );
    }
}

#[test]
fn the_official_servers_largest_and_smallest_rolls_fall_within_their_sides() {
    let table = DiceTable::fold(TABLE, &open(&seed(1), at(0))).expect("folds");
    for (times, max) in [(5000, 5000), (1, 1)] {
        let asked = DiceAsked::try_from((times, max)).expect("in bounds");
        let events = table
            .roll(asked, &seed(1), &keys(), at(1), None)
            .expect("rolls");
        let dice = match events.last() {
            Some(DiceTableEvent::DiceRolled { dice, .. }) => dice.clone(),
            _ => panic!("a roll"),
        };
        assert_eq!(dice.len(), times as usize);
        assert!(dice.iter().all(|d| (1..=max).contains(d)), "{max} sides");
    }
}

#[test]
fn a_roll_with_another_seed_than_the_one_committed_is_refused() {
    let table = DiceTable::fold(TABLE, &open(&seed(1), at(0))).expect("folds");
    let asked = DiceAsked::try_from((1, 6)).expect("in bounds");
    let refused = table
        .roll(asked, &seed(2), &keys(), at(1), None)
        .expect_err("not the seed");
    assert!(
        refused
            .to_string()
            .contains("not the one table c0ffee committed to"),
        "{refused}"
    );
}

#[test]
fn a_reveal_shows_the_seed_and_the_table_goes_on_under_a_new_one() {
    // Given a table with three rolls
    let mut events = rolled(3);
    let table = DiceTable::fold(TABLE, &events).expect("folds");
    // When its seed is revealed
    events.extend(revealed_by_link(&table, &seed(1), &seed(9), 10));
    // Then epoch 2 is committed to the new seed, and rolls go on under it
    let table = DiceTable::fold(TABLE, &events).expect("folds");
    assert_eq!((table.epoch, table.rolls, table.epoch_rolls), (2, 3, 0));
    assert_eq!(table.commitment, hex::encode(seed(9).commitment()));
    let asked = DiceAsked::try_from((2, 6)).expect("in bounds");
    assert!(
        table.roll(asked, &seed(1), &keys(), at(11), None).is_err(),
        "the old seed is spent"
    );
    events.extend(
        table
            .roll(asked, &seed(9), &keys(), at(11), None)
            .expect("rolls"),
    );
    // And an audit checks the revealed epoch's rolls and counts the new one as unrevealed
    let found = audit(TABLE, &events, None).expect("audits");
    assert_eq!((found.rolls_checked, found.rolls_unrevealed), (3, 1));
}

#[test]
fn an_audit_of_a_hundred_revealed_rolls_recomputes_every_die() {
    let mut events = rolled(100);
    let table = DiceTable::fold(TABLE, &events).expect("folds");
    events.extend(revealed_by_link(&table, &seed(1), &seed(2), 200));
    let found = audit(TABLE, &events, Some(keys().public_key()))
        .expect("every die as the seed gives it, every signature the service's");
    assert_eq!(
        (
            found.rolls_checked,
            found.rolls_unrevealed,
            found.signatures_checked
        ),
        (100, 0, 100)
    );
}

#[test]
fn an_audit_names_the_roll_whose_die_was_changed() {
    // Given a hundred revealed rolls, one die of the 57th changed
    let mut events = rolled(100);
    let table = DiceTable::fold(TABLE, &events).expect("folds");
    events.extend(revealed_by_link(&table, &seed(1), &seed(2), 200));
    let DiceTableEvent::DiceRolled { dice, max, .. } = &mut events[57] else {
        panic!("event 58 is a roll");
    };
    dice[0] = dice[0] % *max + 1;
    // When it is audited
    let refused = audit(TABLE, &events, None).expect_err("a die changed");
    // Then the roll is named by its place in the stream
    assert!(
        refused
            .to_string()
            .starts_with("roll at event 58: the record says"),
        "{refused}"
    );
    // And its signature no longer holds either
    let refused = audit(TABLE, &events, Some(keys().public_key())).expect_err("signed otherwise");
    assert!(
        refused
            .to_string()
            .starts_with("roll at event 58: the signature is not the service's"),
        "{refused}"
    );
}

#[test]
fn an_audit_refuses_a_revealed_seed_that_is_not_the_committed_one() {
    let mut events = rolled(2);
    events.push(DiceTableEvent::SeedRevealed {
        epoch: 1,
        seed: hex::encode([7u8; 32]),
        at: at(9),
    });
    let refused = audit(TABLE, &events, None).expect_err("another seed");
    assert!(
        refused
            .to_string()
            .contains("that is not the one committed"),
        "{refused}"
    );
}

#[test]
fn a_pair_of_addresses_names_one_table_in_either_order_and_case() {
    let key = b"the service's key";
    let one = DiceTableId::of(key, "Ann@Example.org", " bob@example.org").expect("a pair");
    let other = DiceTableId::of(key, "bob@example.org", "ann@example.org").expect("a pair");
    assert_eq!(one, other);
    assert_eq!(one.as_str().len(), 32);
    let stream = one.stream().expect("a stream id");
    assert_eq!(stream.as_str(), format!("dice-{}", one.as_str()));
    // The addresses cannot be read back from it, and another key names another table
    assert!(!one.as_str().contains("ann"));
    let keyed_apart = DiceTableId::of(b"another key", "ann@example.org", "bob@example.org");
    assert_ne!(keyed_apart.expect("a pair"), one);
}

#[test]
fn a_missing_or_implausible_address_is_refused_by_its_field() {
    let key = b"k";
    for (first, second, says) in [
        ("", "bob@example.org", "email1 is missing"),
        ("ann@example.org", "  ", "email2 is missing"),
        ("ann", "bob@example.org", "email1 is not an e-mail address"),
        (
            "ann@example.org",
            "bob@@example.org",
            "email2 is not an e-mail address",
        ),
        (
            "ann @example.org",
            "bob@example.org",
            "email1 is not an e-mail address",
        ),
    ] {
        let refused = DiceTableId::of(key, first, second).expect_err("refused");
        assert_eq!(refused.len(), 1, "{refused:?}");
        assert!(refused[0].starts_with(says), "{refused:?}");
    }
    // Both wrong: both named
    let refused = DiceTableId::of(key, "", "bob").expect_err("refused");
    assert_eq!(
        refused,
        [
            "email1 is missing: give both players' e-mail addresses",
            "email2 is not an e-mail address"
        ]
    );
}

#[test]
fn every_event_reads_back_as_it_was_stored() {
    let mut events = rolled(3);
    let table = DiceTable::fold(TABLE, &events).expect("folds");
    events.extend(revealed_by_link(&table, &seed(1), &seed(2), 9));
    for event in &events {
        let (event_type, version, payload) = event.encode().expect("encodes");
        assert!(
            payload.get("type").is_none(),
            "the type is the event's, not the payload's"
        );
        let read = DiceTableEvent::decode(event_type.as_str(), version, &payload).expect("decodes");
        assert_eq!(&read, event);
    }
    let names: Vec<String> = events
        .iter()
        .map(|e| e.encode().expect("encodes").0.as_str().to_owned())
        .collect();
    assert_eq!(
        names,
        [
            "SeedCommitted",
            "DiceRolled",
            "DiceRolled",
            "DiceRolled",
            "SeedRevealed",
            "SeedCommitted"
        ]
    );
}

#[test]
fn one_roll_is_checked_from_its_statement_signature_and_the_public_key_alone() {
    // Given a roll
    let events = rolled(1);
    let DiceTableEvent::DiceRolled {
        index,
        dice,
        at,
        signature,
        ..
    } = &events[1]
    else {
        panic!("a roll");
    };
    // When a player rebuilds its statement from the e-mail
    let signed = RollSigned {
        table: TABLE,
        epoch: 1,
        index: *index,
        sides: 6,
        dice,
        date: &date_of(*at),
    };
    let statement = roll_statement(&signed);
    assert_eq!(
        statement,
        format!(
            "warlog dice roll\ntable: c0ffee\nepoch: 1\nindex: 2\nsides: 6\ndice: {}\ndate: 1970-01-01T00:00:00Z",
            dice.iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(",")
        )
    );
    // Then the signature holds under the service's public key, and not for other dice
    assert!(verify_roll(keys().public_key(), &statement, signature));
    let other = roll_statement(&RollSigned {
        dice: &[6, 6],
        ..signed
    });
    assert!(!verify_roll(keys().public_key(), &other, signature));
    let other_sides = roll_statement(&RollSigned { sides: 8, ..signed });
    assert!(!verify_roll(keys().public_key(), &other_sides, signature));
    let other_epoch = roll_statement(&RollSigned { epoch: 2, ..signed });
    assert!(!verify_roll(keys().public_key(), &other_epoch, signature));
    let stranger = DiceKeys::from_secrets([3; 32], [5; 32]).expect("keys");
    assert!(!verify_roll(stranger.public_key(), &statement, signature));
    assert!(!verify_roll(keys().public_key(), &statement, "not base64!"));
}

#[test]
fn a_reveal_without_the_epochs_link_waits_for_the_stated_idle_time() {
    // Given a table that last rolled at second 2
    let events = rolled(3);
    let table = DiceTable::fold(TABLE, &events).expect("folds");
    assert_eq!(table.idle_reveal_from(IDLE), at(2 + IDLE));
    let seeds = (&seed(1), &seed(2));
    // When anyone asks before the idle time is up, it is refused saying how long
    let refused = table
        .reveal(&RevealAsked::AfterIdle, &keys(), IDLE, seeds, at(1 + IDLE))
        .expect_err("too early");
    assert!(matches!(refused, DiceTableError::RevealRefused(_)));
    assert!(
        refused.to_string().contains("less than 24 hours ago"),
        "{refused}"
    );
    // And a link of another epoch or table does not open it
    for token in [
        keys().reveal_token(TABLE, 2),
        keys().reveal_token("another", 1),
        String::new(),
    ] {
        let refused = table
            .reveal(&RevealAsked::ByLink(token), &keys(), IDLE, seeds, at(3))
            .expect_err("not this epoch's link");
        assert!(
            refused.to_string().contains("not the one for epoch 1"),
            "{refused}"
        );
    }
    // Then once it is up, anyone may
    let revealed = table
        .reveal(&RevealAsked::AfterIdle, &keys(), IDLE, seeds, at(2 + IDLE))
        .expect("idle long enough");
    assert!(matches!(
        revealed[0],
        DiceTableEvent::SeedRevealed { epoch: 1, .. }
    ));
}

#[test]
fn an_epoch_with_no_roll_has_nothing_to_reveal() {
    let table = DiceTable::fold(TABLE, &open(&seed(1), at(0))).expect("folds");
    let link = RevealAsked::ByLink(keys().reveal_token(TABLE, 1));
    let refused = table
        .reveal(&link, &keys(), IDLE, (&seed(1), &seed(2)), at(5))
        .expect_err("no roll yet");
    assert!(matches!(refused, DiceTableError::NothingToReveal(_)));
}

#[test]
fn an_audit_refuses_a_roll_moved_from_its_place() {
    let mut events = rolled(3);
    let DiceTableEvent::DiceRolled { index, .. } = &mut events[2] else {
        panic!("event 3 is a roll");
    };
    *index = 9;
    let refused = audit(TABLE, &events, None).expect_err("moved");
    assert!(
        refused
            .to_string()
            .starts_with("roll at event 3: its index is 9"),
        "{refused}"
    );
}

#[test]
fn idle_times_read_in_the_largest_whole_unit() {
    assert_eq!(idle_in_words(7 * 86_400), "7 days");
    assert_eq!(idle_in_words(86_400), "24 hours");
    assert_eq!(idle_in_words(3_600), "1 hour");
    assert_eq!(idle_in_words(90), "2 minutes");
    assert_eq!(idle_in_words(1), "1 second");
}

#[test]
fn an_audit_refuses_a_roll_made_after_its_epochs_seed_was_revealed() {
    // Given two rolls, the seed revealed with no new epoch committed, and a roll after it:
    // its dice were anyone's to pick, though the service signed them
    let mut events = rolled(2);
    events.push(DiceTableEvent::SeedRevealed {
        epoch: 1,
        seed: hex::encode(seed(1).expose()),
        at: at(5),
    });
    let table = DiceTable::fold(TABLE, &events).expect("folds");
    let asked = DiceAsked::try_from((2, 6)).expect("in bounds");
    events.extend(
        table
            .roll(asked, &seed(1), &keys(), at(6), None)
            .expect("rolls"),
    );
    // When it is audited with every signature checked
    let (_, findings) = audit_findings(TABLE, &events, Some(keys().public_key()));
    // Then the bare reveal and the roll after it are both named
    let named: Vec<String> = findings.iter().map(ToString::to_string).collect();
    assert_eq!(
        named,
        [
            "event 4: reveals epoch 1, and no new epoch is committed right after it",
            "roll at event 5: it was made after epoch 1's seed was revealed, before a new one was committed",
        ]
    );
}

#[test]
fn a_table_resumed_from_its_latest_commitment_and_last_event_is_the_table_folded_whole() {
    // Given a table with two reveals and rolls in between and after
    let mut events = rolled(3);
    let table = DiceTable::fold(TABLE, &events).expect("folds");
    events.extend(revealed_by_link(&table, &seed(1), &seed(2), 10));
    for (n, next) in [(4, seed(3)), (2, seed(4))] {
        for i in 0..n {
            let table = DiceTable::fold(TABLE, &events).expect("folds");
            let asked = DiceAsked::try_from((2, 6)).expect("in bounds");
            let current = if next == seed(3) { seed(2) } else { seed(3) };
            events.extend(
                table
                    .roll(asked, &current, &keys(), at(20 + i), None)
                    .expect("rolls"),
            );
        }
        let table = DiceTable::fold(TABLE, &events).expect("folds");
        let current = if next == seed(3) { seed(2) } else { seed(3) };
        events.extend(revealed_by_link(&table, &current, &next, 30));
    }
    let table = DiceTable::fold(TABLE, &events).expect("folds");
    events.extend(
        table
            .roll(
                DiceAsked::try_from((1, 6)).expect("in bounds"),
                &seed(4),
                &keys(),
                at(40),
                None,
            )
            .expect("rolls"),
    );
    // When it is resumed from its latest commitment, its last event and its version
    let whole = DiceTable::fold(TABLE, &events).expect("folds");
    let (at_version, committed) = events
        .iter()
        .enumerate()
        .rev()
        .find(|(_, e)| matches!(e, DiceTableEvent::SeedCommitted { .. }))
        .expect("a commitment");
    let resumed = DiceTable::resume(
        TABLE,
        committed,
        at_version as u64 + 1,
        events.last().expect("an event"),
        events.len() as u64,
    )
    .expect("resumes");
    // Then it is the same table
    assert_eq!(resumed, whole);
    assert_eq!((whole.epoch, whole.rolls, whole.epoch_rolls), (4, 10, 1));
}

#[test]
fn the_published_statement_template_has_the_signed_statements_lines_in_order() {
    let template = statement_template();
    let example = roll_statement(&example_roll());
    let names = |text: &str| -> Vec<String> {
        text.lines()
            .map(|l| l.split(": ").next().unwrap_or_default().to_owned())
            .collect()
    };
    assert_eq!(names(&template), names(&example));
    assert_eq!(template.lines().count(), 7, "{template}");
    assert!(template.contains("sides: <sides>") && template.contains("epoch: <epoch>"));
}

#[test]
fn an_address_is_kept_and_mailed_in_one_spelling_of_its_mailbox() {
    for (given, canonical) in [
        ("Ann@Club.Example", "ann@club.example"),
        ("  ann@club.example.  ", "ann@club.example"),
        // The Kelvin sign (U+212A) is a K; a full-width letter its plain one.
        ("\u{212A}im@club.example", "kim@club.example"),
        ("ｂob@club.example", "bob@club.example"),
        // An internationalised domain in its IDNA form.
        ("ann@bücher.example", "ann@xn--bcher-kva.example"),
        // A name all in one script stands.
        ("борис@club.example", "борис@club.example"),
    ] {
        assert_eq!(
            canonical_address(given, "email1").as_deref(),
            Ok(canonical),
            "{given}"
        );
    }
}

#[test]
fn a_look_alike_made_of_two_scripts_is_refused_by_its_field() {
    // "bob" with a Cyrillic "о" in the middle.
    let refused = canonical_address("b\u{43e}b@club.example", "email2").expect_err("mixed");
    assert!(refused.starts_with("email2 mixes scripts"), "{refused}");
    assert!(refused.contains("Latin and Cyrillic"), "{refused}");
    assert!(canonical_address("ann@", "email1").is_err());
    assert!(canonical_address("ann@exa mple.org", "email1").is_err());
}

#[test]
fn a_pair_spelled_with_the_kelvin_sign_sits_at_its_players_table() {
    let key = [7u8; 32];
    let plain = DiceTableId::of(&key, "kim@club.example", "lee@club.example").expect("a table");
    let kelvin =
        DiceTableId::of(&key, "\u{212A}im@club.example", "LEE@club.example.").expect("a table");
    assert_eq!(plain, kelvin);
}
