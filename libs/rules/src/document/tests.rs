//! Tests of ruleset documents: every mistake of an upload reported with its path, options
//! applied, and the built-ins keeping the hashes recorded games carry.

use serde_json::json;

use super::*;
use crate::ruleset::Ruleset;

fn cut_throat() -> Value {
    serde_json::to_value(RulesetDocument::builtin("cutthroat").expect("cutthroat")).expect("json")
}

fn paths(problems: &[DocumentProblem]) -> Vec<&str> {
    problems.iter().map(|p| p.path.as_str()).collect()
}

#[test]
fn the_built_in_document_reads_back_to_itself() {
    let document = RulesetDocument::builtin("cutthroat").expect("cutthroat");
    let read = RulesetDocument::parse(&cut_throat()).expect("valid");
    assert_eq!(read, document);
    assert_eq!(read.hash(), document.hash());
}

#[test]
fn five_different_mistakes_are_all_reported_with_their_paths() {
    let mut upload = cut_throat();
    upload["id"] = json!("house-rules");
    upload["units"]["INF"]["cost"] = json!("three");
    upload["turn_order"][4] = json!("russia");
    upload["board"]["connections"][0][1] = json!("Atlantis");
    upload["setup"][0]["units"] = json!("3 INF, 1 DRAGON");
    upload["dice_tables"] = json!([{ "name": "start", "dice": 3,
        "rows": [{ "from": 3, "to": 9, "result": "a" }, { "from": 11, "to": 18, "result": "b" }] }]);
    let problems = RulesetDocument::parse(&upload).expect_err("five mistakes");
    let found = paths(&problems);
    for expected in [
        "/units/INF/cost",
        "/turn_order/4",
        "/board/connections/0/1",
        "/setup/0/units",
        "/dice_tables/0/rows/1",
    ] {
        assert!(
            found.contains(&expected),
            "{expected} missing from {problems:#?}"
        );
    }
    assert!(problems
        .iter()
        .any(|p| p.path == "/board/connections/0/1" && p.message.contains("Atlantis")));
    assert!(
        problems
            .iter()
            .any(|p| p.path == "/dice_tables/0/rows/1"
                && p.message.contains("no row covers 10 to 10"))
    );
}

#[test]
fn unknown_and_missing_fields_are_named() {
    let mut upload = cut_throat();
    let object = upload.as_object_mut().expect("object");
    object.remove("scoring");
    object.insert("colour".into(), json!("red"));
    let problems = RulesetDocument::parse(&upload).expect_err("bad fields");
    assert!(problems
        .iter()
        .any(|p| p.path.is_empty() && p.message.contains("\"scoring\"")));
    assert!(problems.iter().any(|p| p.path == "/colour"));
}

#[test]
fn a_control_character_in_the_name_or_a_territorys_is_refused_by_its_path() {
    let mut upload = cut_throat();
    upload["name"] = json!("House\u{85}rules");
    upload["board"]["territories"][0]["name"] = json!("Germany\t");
    let problems = RulesetDocument::parse(&upload).expect_err("controls");
    let found = paths(&problems);
    assert!(found.contains(&"/name"), "{problems:#?}");
    assert!(
        found.contains(&"/board/territories/0/name"),
        "{problems:#?}"
    );
    assert!(problems
        .iter()
        .any(|p| p.path == "/name" && p.message.contains("U+0085")));
}

#[test]
fn a_later_format_and_a_bad_id_are_refused() {
    let mut upload = cut_throat();
    upload["format"] = json!(2);
    upload["id"] = json!("Not An Id");
    let problems = RulesetDocument::parse(&upload).expect_err("bad");
    assert_eq!(paths(&problems), ["/format", "/id"]);
}

#[test]
fn a_dice_table_may_name_totals_the_dice_cannot_show() {
    let mut upload = cut_throat();
    upload["dice_tables"] = json!([{ "name": "start", "dice": 3, "rows": [
        { "from": 1, "to": 2, "result": "never" },
        { "from": 3, "to": 18, "result": "always" },
        { "from": 19, "to": 30, "result": "pick" }] }]);
    assert!(RulesetDocument::parse(&upload).is_ok());
    upload["dice_tables"][0]["rows"][1]["to"] = json!(17);
    let problems = RulesetDocument::parse(&upload).expect_err("18 uncovered");
    assert_eq!(paths(&problems), ["/dice_tables/0/rows"]);
}

#[test]
fn enhanced_realism_becomes_the_games_income_and_production() {
    let document = RulesetDocument::builtin("cutthroat").expect("cutthroat");
    let options = GameOptions {
        enhanced_realism: Some(EnhancedRealism {
            scenario: Scenario::AllTripled,
            usa_phased_in: false,
        }),
        alternate_turn_order: true,
        survive_to_round: None,
    };
    let played = document.with_options(&options).expect("offered");
    assert_eq!(played.production, ProductionRule::IndustrialCapacity);
    assert_eq!(
        played.units["ART"].cost, 4,
        "artillery comes with Enhanced Realism"
    );
    assert!(!document.units.contains_key("ART"));
    assert_eq!(played.turn_order, ALTERNATE_TURN_ORDER);
    assert_ne!(played.hash(), document.hash());
    let ruleset = Ruleset::install(played, options, false).expect("playable");
    assert_eq!(ruleset.powers()[0], Power::UnitedStates);
}

#[test]
fn an_option_the_ruleset_does_not_offer_is_refused() {
    let mut document = RulesetDocument::builtin("cutthroat").expect("cutthroat");
    document.options.clear();
    let options = GameOptions {
        alternate_turn_order: true,
        ..GameOptions::default()
    };
    let problems = document.with_options(&options).expect_err("not offered");
    assert_eq!(paths(&problems), ["/options/alternate_turn_order"]);
}

#[test]
fn a_ruleset_scored_by_zone_points_places_by_what_is_held_at_the_end() {
    use crate::game::{apply, GameEvent, Moment};
    let mut document = RulesetDocument::builtin("cutthroat").expect("cutthroat");
    document.id = "cutthroat-zones".into();
    document.scoring = ScoringRule::ZonePoints {
        points: vec![5, 3, 2, -1, -2],
    };
    let ruleset = Ruleset::uploaded(&document, &GameOptions::default()).expect("playable");
    let mut state = ruleset.start();
    // The US holds the most (36) and Germany 32; by percent gain all would tie at 0.
    let final_ipc: Vec<(Power, u32)> = ruleset
        .powers()
        .iter()
        .map(|p| (*p, state.ipc_count(&ruleset.board, *p)))
        .collect();
    apply(
        ruleset.rules(),
        &mut state,
        &GameEvent::GameEnded {
            at: Moment::default(),
            final_ipc,
        },
    );
    let placed = state
        .placements(ruleset.rules(), &ruleset.points)
        .expect("ended")
        .expect("placed");
    assert_eq!(placed[0].power, Power::UnitedStates);
    assert_eq!((placed[0].place, placed[0].tied_with), (1, 1));
    assert_eq!(
        placed[4].power,
        Power::Russia,
        "24, the fewest: the Dan Quayle reward"
    );
    // The War rules' own document plays, with its start-zone chart on the board's ids.
    let war = Ruleset::builtin("war").expect("War plays");
    let chart = war.special.war.as_ref().expect("a start-zone chart");
    assert_eq!((chart.dice, chart.bases), (3, 3));
    assert!(war.special.zone_points);
}

#[test]
fn a_war_document_names_places_on_the_board_or_pick_and_has_the_units_its_tables_place() {
    let mut upload =
        serde_json::to_value(RulesetDocument::builtin("war").expect("war")).expect("json");
    upload["id"] = json!("house-war");
    assert!(RulesetDocument::parse(&upload).is_ok());
    upload["dice_tables"][0]["rows"][3]["result"] = json!("Atlantis");
    upload["dice_tables"][0]["rows"][4]["result"] = json!("pick");
    let problems = RulesetDocument::parse(&upload).expect_err("no Atlantis");
    assert_eq!(paths(&problems), ["/dice_tables/0/rows/3/result"]);
    upload["dice_tables"][0]["rows"][3]["result"] = json!("Germany");
    let mut without_carriers = upload.clone();
    without_carriers["units"]
        .as_object_mut()
        .expect("units")
        .remove("AC");
    let problems = RulesetDocument::parse(&without_carriers).expect_err("no AC");
    assert_eq!(paths(&problems), ["/special_rules/start_zones"]);
    let mut lost_continent = upload.clone();
    lost_continent["special_rules"]["continents"][0]["territories"][0] = json!("Atlantis");
    lost_continent["special_rules"]["continents"][1]["territories"][0] = json!("Germany");
    let problems = RulesetDocument::parse(&lost_continent).expect_err("no Atlantis");
    assert_eq!(
        paths(&problems),
        [
            "/special_rules/continents/0/territories/0",
            "/special_rules/continents/2/territories/6"
        ],
        "{problems:?}"
    );
    let played = RulesetDocument::parse(&upload).expect("valid");
    let ruleset = Ruleset::uploaded(&played, &GameOptions::default()).expect("plays");
    let chart = ruleset.special.war.as_ref().expect("a chart");
    assert_eq!(chart.rows[4].2, None, "pick");
}

/// Games record the hash of the document they were created with and refuse to fold under
/// another: a change to a playable built-in document (a new field not left out when
/// empty, say) would strand every recorded game. A deliberate change keeps the revision
/// before it in `data/revisions/`, where recorded games find it by their hash.
///
/// Games created before hashes were canonical carry the legacy hash (the JSON in field
/// order); games created since, the canonical one. Both are pinned: both must verify.
#[test]
fn the_built_in_playable_documents_keep_the_hashes_recorded_games_carry() {
    let hash = |id| {
        RulesetDocument::builtin_hashed(id)
            .expect(id)
            .0
            .legacy_hash()
    };
    let canonical = |id| RulesetDocument::builtin_hashed(id).expect(id).1;
    assert_eq!(
        [
            canonical("cutthroat"),
            canonical("aap-historical"),
            canonical("war")
        ],
        [
            "d3be9aac915f07337b0135ceba4dbcd02e06e8797ae08cf933fa658bc2b0b96e",
            "6dcbdd349fc6f2ede7474604f478fb3ec5727139c6afa42541e3e3a3101c8d0c",
            "f7cc7f949ebc7827040169bfa04ff86c5ac9912ea70f0718d900188534f12b2f",
        ]
    );
    // Revision 5: Enhanced Realism's income at the beginning of the turn.
    assert_eq!(
        hash("cutthroat"),
        "6b2b2d8e50fbe17bf762f40a610ec33ebb2ae64a44ed8ed9a01ea867c024db70"
    );
    // AAP Historical revision 3: convoys captured and liberated, submarines attacked only
    // where 7.1 allows, combat air patrol, lending to the KMT, Shansi's garrison, the CCP's
    // recruits placed by its player, Japan's twelve kamikaze tokens, the board's air and
    // naval bases (Midway's an air base) and its marines.
    assert_eq!(
        hash("aap-historical"),
        "53df81c14da469b664223f7f2a4c058f6c6af2c51d73fb4f7fdfcea8ffd88438"
    );
    let earlier: Vec<(String, String)> = RulesetDocument::builtin_revisions("aap-historical")
        .expect("revisions")
        .iter()
        .map(|document| (document.legacy_hash(), document.hash()))
        .collect();
    assert_eq!(
        earlier,
        [
            (
                // 1: the first playable one: the Pacific board, its setup and the seed's.
                "04d3368adaf3e6c6a6521c08eaf6a48d3810457a7ac6c97da20ccfe1b49bf2bd".to_owned(),
                "41180ad7954a5524b7ee55c9de27fb31a58b2007884a879f718c746dabae18fa".to_owned()
            ),
            (
                // 2: the Pacific board's battleship, the UK's start without convoy money,
                // the KMT and the CCP rivals, two sides, an attacking CCP stack uncounted.
                "26d7df91c83507d66f5ffc84a5d8a915a395f864943fb02738c2f9f381941f26".to_owned(),
                "7ba6eac71b995c0e0e9352131c8209f03da90082a118f36ebfc345c7505e2f2a".to_owned()
            )
        ]
    );
    assert_eq!(
        hash("war"),
        "a6f8949832084b87a346b6cfecbbc0146be3049e18d56b1f4d7921a4cce6d45f"
    );
    let earlier: Vec<String> = RulesetDocument::builtin_revisions("cutthroat")
        .expect("revisions")
        .iter()
        .map(RulesetDocument::legacy_hash)
        .collect();
    assert_eq!(
        earlier,
        [
            // 1: as first published.
            "a8c76733cf73032ff997d53f7d926e75844e2d1c30ff6e4f546e8bdf081fb3fa",
            // 2: Japan's home complex and AA gun, South Africa's complex a new one.
            "71113d5348de209b333389f4878fc641c8904ecb68f1ab2ef2a936bd1856d567",
            // 3: SAAC from round 2 on land, the defender's hits column by column.
            "f6fe674c9aa26ca0ecd15237acbc1ee76f1ccd529b31c1cfdd562a7880586fd9",
            // 4: submarines facing only aircraft withdraw (the IAAPA sub rule); its
            // canonical hash is 95f7112a...
            "24531e64da5688993b60a2ee725d1020db30bba298f05ccde098aa4a7584cdb3",
        ]
    );
}

/// Games of AAP Historical's first revision keep Cut-Throat's battleship, the UK's 47 at
/// the start, the Allies bound together and an attacking CCP stack counted for heavy
/// weapons; games created since play revision 2.
#[test]
fn an_aap_game_of_revision_one_plays_on_under_revision_one() {
    let options = GameOptions::default();
    let r1 = "41180ad7954a5524b7ee55c9de27fb31a58b2007884a879f718c746dabae18fa";
    let earlier = Ruleset::builtin_revision("aap-historical", &options, r1)
        .expect("built")
        .expect("revision 1 is kept");
    let current = Ruleset::builtin("aap-historical").expect("current");
    let battleship = |ruleset: &Ruleset| {
        let bb = ruleset
            .catalogue
            .get(ruleset.catalogue.id("BB").expect("BB"));
        (bb.hit_points, bb.damaged_defense)
    };
    assert_eq!(battleship(earlier), (2, Some(3)));
    assert_eq!(battleship(current), (2, None));
    let uk_at_start = |ruleset: &Ruleset| ruleset.start().treasury[&Power::UnitedKingdom];
    assert_eq!(uk_at_start(earlier), 47);
    assert_eq!(uk_at_start(current), 35);
    assert!(!earlier.start().at_war(Power::Ccp, Power::Kmt));
    assert!(earlier.special.rivals.is_empty() && current.special.rivals.len() == 1);
    assert!(earlier.catalogue.id("HARM").is_ok() && current.catalogue.id("HARM").is_err());
    assert!(earlier.special.heavy_weapons_uncounted.is_empty());
    assert_eq!(current.special.heavy_weapons_uncounted, vec![Power::Ccp]);
}

/// Revision 3 fights Cut-Throat's battles with Part 13's and IAAPA's defaults; games of
/// revision 2 keep the engine's first reading.
#[test]
fn cut_throat_battles_take_saac_from_round_two_and_defending_hits_by_column() {
    let current = Ruleset::builtin("cutthroat").expect("current");
    assert_eq!(current.special.saac_from_round, Some(2));
    assert!(current.special.defender_hits_by_column);
    let r2 = "71113d5348de209b333389f4878fc641c8904ecb68f1ab2ef2a936bd1856d567";
    let earlier = Ruleset::builtin_revision("cutthroat", &GameOptions::default(), r2)
        .expect("built")
        .expect("revision 2 is kept");
    assert_eq!(earlier.special.saac_from_round, None);
    assert!(!earlier.special.defender_hits_by_column);
}

/// A game created under revision 1 (Japan without its complex) plays on under it.
#[test]
fn a_game_recorded_under_an_earlier_revision_plays_under_that_revision() {
    let options = GameOptions::default();
    let r1 = "a8c76733cf73032ff997d53f7d926e75844e2d1c30ff6e4f546e8bdf081fb3fa";
    let earlier = Ruleset::builtin_revision("cutthroat", &options, r1)
        .expect("built")
        .expect("revision 1 is kept");
    let current = Ruleset::builtin("cutthroat").expect("current");
    assert_eq!(earlier.legacy_hash, r1);
    assert_ne!(earlier.hash, current.hash);
    let complexes_in_japan = |ruleset: &Ruleset| {
        let japan = ruleset.board.id("Japan").expect("Japan");
        let ic = ruleset.catalogue.id("IC").expect("IC");
        ruleset
            .setup
            .places
            .iter()
            .filter(|p| p.territory == japan)
            .flat_map(|p| &p.units)
            .filter(|(u, _)| *u == ic)
            .count()
    };
    assert_eq!(complexes_in_japan(earlier), 0);
    assert_eq!(complexes_in_japan(current), 1);
    // With options applied, the same: Enhanced Realism games of revision 1 find it too.
    let er = GameOptions {
        alternate_turn_order: true,
        ..GameOptions::default()
    };
    let r1_er = RulesetDocument::builtin_revisions("cutthroat").expect("revisions")[0]
        .with_options(&er)
        .expect("options")
        .hash();
    assert!(Ruleset::builtin_revision("cutthroat", &er, &r1_er)
        .expect("built")
        .is_some());
    assert!(
        Ruleset::builtin_revision("cutthroat", &options, &"00".repeat(32))
            .expect("built")
            .is_none()
    );
}

/// Rivals are two powers of one alliance: a pair outside one is named.
#[test]
fn rivals_outside_one_alliance_are_refused() {
    let mut upload = serde_json::to_value(RulesetDocument::builtin("aap-historical").expect("aap"))
        .expect("json");
    upload["id"] = json!("aap-rivals");
    upload["special_rules"]["rivals"] = json!([["ccp", "kmt"], ["japan", "kmt"]]);
    let problems = RulesetDocument::parse(&upload).expect_err("japan is in no alliance");
    assert_eq!(
        paths(&problems),
        ["/special_rules/rivals/1"],
        "{problems:?}"
    );
}
