//! The map's label measure held against a browser's: Chromium draws both boards, whole and
//! zoomed to each region, and measures every line of every label; each must fit inside
//! the chip drawn for it, so `warlog_api::map::text_width` is an upper bound in fact, and
//! the label check (`map::check`, run at every version elsewhere) is a check of what
//! people see.

use warlog_api::map::{board_svg, check, text_width, MapLayout};
use warlog_api::views::BoardView;
use warlog_events::sample::SampleGame;
use warlog_rules::dice::GameSeed;
use warlog_rules::ruleset::Ruleset;

use crate::pages::{chromium, run_chromium, tempdir};

/// A page that measures each label line (`<tspan>`) once the browser has laid it out, and
/// writes the widths, in user units, into `#measured` for `--dump-dom` to carry out.
fn measuring_page(svgs: &[String]) -> String {
    format!(
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"></head><body>{}\
         <pre id=\"measured\"></pre><script>\
         const out = [];\
         document.querySelectorAll('svg').forEach((svg, s) => {{\
           svg.querySelectorAll('g.label tspan').forEach(t => out.push([s, t.textContent, t.getComputedTextLength()]));\
         }});\
         document.getElementById('measured').textContent = JSON.stringify(out);\
         </script></body></html>",
        svgs.concat()
    )
}

#[actix_web::test]
async fn every_label_line_is_narrower_in_chromium_than_the_measure_the_chips_are_cut_by() {
    let Some(browser) = chromium() else {
        assert!(
            std::env::var("WARLOG_REQUIRE_CHROMIUM").as_deref() != Ok("1"),
            "WARLOG_REQUIRE_CHROMIUM=1 but no chromium on PATH (apt-get install chromium)"
        );
        eprintln!(
            "no chromium on PATH: the label measure is not checked (apt-get install chromium)"
        );
        return;
    };
    let mut svgs = Vec::new();
    for id in ["cutthroat", "aap-historical"] {
        let ruleset = Ruleset::builtin(id).expect("a built-in ruleset");
        let mut game = SampleGame::new(ruleset, "measure", GameSeed::from_bytes([5; 32]), 3);
        game.play_until(300, 2_000);
        let layout = MapLayout::of(&ruleset.board);
        let view = BoardView::of(&game.log);
        svgs.push(board_svg(&view, &layout, None, None));
        for region in layout.regions() {
            svgs.push(board_svg(&view, &layout, None, Some(&region.id)));
        }
    }
    let dir = tempdir();
    let page = dir.join("measure.html");
    std::fs::write(&page, measuring_page(&svgs)).expect("the page written");
    let dom = run_chromium(
        &browser,
        &[
            "--dump-dom".to_owned(),
            format!("file://{}", page.display()),
        ],
    )
    .await;
    let _ = std::fs::remove_dir_all(&dir);
    let json = dom
        .split("<pre id=\"measured\">")
        .nth(1)
        .and_then(|rest| rest.split("</pre>").next())
        .expect("the measures")
        .replace("&quot;", "\"")
        .replace("&amp;", "&");
    let measured: Vec<(usize, String, f64)> = serde_json::from_str(&json).expect("JSON");
    let mut lines = 0;
    for (s, svg) in svgs.iter().enumerate() {
        let (_, labels) = check::labels_of(svg);
        let drawn: Vec<(&String, f64)> = measured
            .iter()
            .filter(|(k, _, _)| *k == s)
            .map(|(_, text, width)| (text, *width))
            .collect();
        let ours: Vec<(&String, f64, &check::DrawnLabel)> = labels
            .iter()
            .flat_map(|l| l.lines.iter().map(move |(text, _, _)| (text, 0.0, l)))
            .collect();
        assert_eq!(drawn.len(), ours.len(), "view {s}: every line measured");
        for ((text, width), (our_text, _, label)) in drawn.iter().zip(&ours) {
            assert_eq!(text, our_text);
            let bound = text_width(text, label.font_size, label.bold);
            assert!(
                *width <= bound,
                "view {s}: {text:?} is {width:.1} wide in Chromium, measured {bound:.1}"
            );
            lines += 1;
        }
    }
    assert!(lines > 500, "only {lines} lines measured");
}
