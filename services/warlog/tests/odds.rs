//! `warlog odds` as a user runs it.

use std::process::Command;

fn odds(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_warlog"))
        .arg("odds")
        .args(args)
        .output()
        .expect("warlog runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn one_infantry_against_one_prints_the_exact_fractions_as_json() {
    let (ok, stdout, stderr) = odds(&["--attacker", "1 inf", "--defender", "1 inf", "--json"]);
    assert!(ok, "{stderr}");
    let value: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
    let field = |name: &str| value[name].as_f64().expect(name);
    assert!((field("attacker_win") - 0.25).abs() < 1e-12);
    assert!((field("defender_win") - 0.625).abs() < 1e-12);
    assert!((field("mutual_destruction") - 0.125).abs() < 1e-12);
}

#[test]
fn an_unknown_unit_or_order_is_named_and_fails() {
    let (ok, _, stderr) = odds(&["--attacker", "2 dragons", "--defender", "1 inf"]);
    assert!(!ok);
    assert!(stderr.contains("dragons"), "{stderr}");
    let (ok, _, stderr) = odds(&[
        "--attacker",
        "1 inf",
        "--defender",
        "1 inf",
        "--order",
        "YOLO",
    ]);
    assert!(!ok);
    assert!(stderr.contains("YOLO"), "{stderr}");
}
