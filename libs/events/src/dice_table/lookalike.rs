//! What an address looks like, so that its owner can find every table naming an address
//! that passes for theirs: `bob+x@`, `b.ob@`, `B0B@` with a zero, or a whole name in
//! Cyrillic letters that look Latin all look like `bob@`. The form kept is Unicode's
//! confusable skeleton (UTS 39) of the name without its `+tag` and its dots, and of the
//! domain as written in Unicode; it is only ever compared, never shown or mailed.

use unicode_security::skeleton;

/// The look-alike form of an address already in its canonical spelling
/// ([`super::canonical_address`]). Two addresses with the same form could be taken for one
/// another by a reader.
pub fn lookalike_form(canonical: &str) -> String {
    let (local, domain) = canonical.rsplit_once('@').unwrap_or((canonical, ""));
    let local = local.split('+').next().unwrap_or(local).replace('.', "");
    let (domain, _) = idna::domain_to_unicode(domain);
    let local: String = skeleton(&local).collect::<String>().to_lowercase();
    let domain: String = skeleton(&domain).collect::<String>().to_lowercase();
    format!("{local}@{domain}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice_table::canonical_address;

    fn form(address: &str) -> String {
        lookalike_form(&canonical_address(address, "email1").expect("an address"))
    }

    #[test]
    fn tags_dots_case_and_a_trailing_dot_look_like_the_plain_address() {
        let plain = form("bob@club.example");
        for like in [
            "bob+x@club.example",
            "b.ob@club.example",
            "BOB@Club.Example.",
            "b.o.b+dice@club.example",
        ] {
            assert_eq!(form(like), plain, "{like}");
        }
    }

    #[test]
    fn letters_of_another_script_or_digits_that_pass_for_letters_look_like_them() {
        // "ооо" in Cyrillic, a whole name of one script (mixed names are refused outright).
        assert_eq!(
            form("\u{043e}\u{043e}\u{043e}@club.example"),
            form("ooo@club.example")
        );
        assert_eq!(form("b0b@club.example"), form("bob@club.example"));
        assert_eq!(form("bob@c1ub.example"), form("bob@club.example"));
    }

    #[test]
    fn another_name_does_not_look_like_it() {
        assert_ne!(form("rob@club.example"), form("bob@club.example"));
        assert_ne!(form("bob@club.example"), form("bob@pub.example"));
    }
}
