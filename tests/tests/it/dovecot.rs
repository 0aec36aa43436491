//! A private Dovecot IMAP server for the mail tests, started in a temporary directory on
//! free ports (IMAP, IMAPS with a certificate of a test authority, LMTP when Debian's
//! `dovecot-lmtpd` is there), holding the players' replies; stopped and removed when
//! dropped.
//!
//! Debian's `dovecot-imapd` provides it. Without it the tests that need it say "skipped"
//! and pass, unless `WARLOG_REQUIRE_DOVECOT=1` (CI sets it, and installs the package).
//! Run as root (as CI is), its processes and mail belong to `nobody`; else to the user.

use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::mail_clients::{lmtp_send, python, RawMail};

const DOVECOT: &str = "/usr/sbin/dovecot";
const LDA: &str = "/usr/lib/dovecot/dovecot-lda";
const LMTP: &str = "/usr/lib/dovecot/lmtp";

/// How long Dovecot may take to listen, on a machine kept busy.
const START_LIMIT: Duration = Duration::from_secs(60);

static INSTANCES: AtomicUsize = AtomicUsize::new(0);

/// Runs `$1 -F -c $2` (Dovecot in the foreground, in this shell's place, so its process is
/// the child) and stops it (SIGTERM) once its standard input ends: when the `Dovecot` is
/// dropped, or when the tests' process ends however it ends, so no Dovecot outlives them.
const KEPT_BY_THE_TESTS: &str = r#"exec 3<&0
{ cat <&3 >/dev/null; kill -TERM $$ 2>/dev/null; } &
exec "$1" -F -c "$2" 3<&- </dev/null"#;

/// A running Dovecot of the test's own; see the module's comment.
#[derive(Debug)]
pub(crate) struct Dovecot {
    dir: PathBuf,
    /// Dovecot's master process.
    child: Child,
    /// Its end closed, Dovecot is stopped (see `KEPT_BY_THE_TESTS`).
    lifeline: Option<ChildStdin>,
    imap_port: u16,
    imaps_port: u16,
    lmtp_port: Option<u16>,
    users: Vec<(String, String)>,
}

/// The account Dovecot's processes and the users' mail run as.
#[derive(Debug)]
struct Account {
    user: String,
    group: String,
    uid: u32,
    gid: u32,
}

impl Account {
    /// `nobody` when the tests run as root (Dovecot refuses root for its logins and mail),
    /// else the user running them.
    fn for_dovecot() -> Self {
        let named = if id(&["-u"]) == "0" {
            vec!["nobody"]
        } else {
            vec![]
        };
        let ask = |flag: &str| {
            let mut args = vec![flag];
            args.extend(&named);
            id(&args)
        };
        Account {
            user: ask("-un"),
            group: ask("-gn"),
            uid: ask("-u").parse().expect("a uid"),
            gid: ask("-g").parse().expect("a gid"),
        }
    }
}

fn id(args: &[&str]) -> String {
    let out = Command::new("id").args(args).output().expect("id runs");
    assert!(out.status.success(), "id {args:?} failed");
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// Dovecot holding a mailbox for each of `users` (name, password), listening on 127.0.0.1;
/// `None`, saying "skipped", when Dovecot is not installed and `WARLOG_REQUIRE_DOVECOT` is
/// not set (set, that panics).
pub(crate) async fn start(users: &[(&str, &str)]) -> Option<Dovecot> {
    if !Path::new(DOVECOT).exists() {
        let required =
            std::env::var("WARLOG_REQUIRE_DOVECOT").is_ok_and(|v| !v.is_empty() && v != "0");
        assert!(
            !required,
            "WARLOG_REQUIRE_DOVECOT is set but there is no {DOVECOT} \
             (apt-get install dovecot-imapd dovecot-lmtpd)"
        );
        eprintln!("skipped: no dovecot ({DOVECOT}; apt-get install dovecot-imapd dovecot-lmtpd)");
        return None;
    }
    for (user, password) in users {
        assert!(
            !user.is_empty()
                && user
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "._-+@".contains(c)),
            "a user name Dovecot's passwd-file and a path can hold: {user:?}"
        );
        assert!(
            !password.contains([':', '\n']),
            "a password a passwd-file can hold: {password:?}"
        );
    }
    remove_left_behind();
    let account = Account::for_dovecot();
    // A port taken between its choice and Dovecot's start is chosen again.
    let mut failures = Vec::new();
    for _ in 0..3 {
        match launch(users, &account).await {
            Ok(dovecot) => return Some(dovecot),
            Err(why) => failures.push(why),
        }
    }
    panic!("dovecot did not start:\n{}", failures.join("\n---\n"));
}

/// The directories of Dovecots whose tests' process was killed (its own Dovecot stopped
/// then, but the directory stayed).
fn remove_left_behind() {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = name
            .strip_prefix("warlog-dovecot-")
            .and_then(|rest| rest.split('-').next())
        else {
            continue;
        };
        if !pid.is_empty()
            && pid.bytes().all(|b| b.is_ascii_digit())
            && !Path::new("/proc").join(pid).exists()
        {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

async fn launch(users: &[(&str, &str)], account: &Account) -> Result<Dovecot, String> {
    let dir = std::env::temp_dir().join(format!(
        "warlog-dovecot-{}-{}",
        std::process::id(),
        INSTANCES.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    for sub in ["base", "state", "mail"] {
        std::fs::create_dir_all(dir.join(sub)).expect("dovecot's directories");
    }
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755))
            .expect("the directory's mode");
    }
    std::os::unix::fs::chown(dir.join("mail"), Some(account.uid), Some(account.gid))
        .expect("the mail directory for dovecot's user");
    certificates(&dir);

    let passwd: String = users
        .iter()
        .map(|(user, password)| {
            format!(
                "{user}:{{PLAIN}}{password}:{uid}:{gid}::{home}::\n",
                uid = account.uid,
                gid = account.gid,
                home = dir.join("mail").join(user).display(),
            )
        })
        .collect();
    std::fs::write(dir.join("passwd"), passwd).expect("the passwd-file");

    let (imap_port, imaps_port) = (free_port(), free_port());
    let lmtp_port = Path::new(LMTP).exists().then(free_port);
    let d = dir.display();
    let lmtp = match lmtp_port {
        Some(port) => format!(
            "service lmtp {{\n  inet_listener lmtp {{\n    address = 127.0.0.1\n    port = {port}\n  }}\n}}\n"
        ),
        None => String::new(),
    };
    let conf = format!(
        "# A private instance for warlog's tests.\n\
         protocols = imap{lmtp_protocol}\n\
         listen = 127.0.0.1\n\
         instance_name = {instance}\n\
         base_dir = {d}/base\n\
         state_dir = {d}/state\n\
         log_path = {d}/dovecot.log\n\
         info_log_path = {d}/dovecot.log\n\
         default_internal_user = {user}\n\
         default_internal_group = {group}\n\
         default_login_user = {user}\n\
         first_valid_uid = 1\n\
         first_valid_gid = 1\n\
         ssl = yes\n\
         ssl_cert = <{d}/server.crt\n\
         ssl_key = <{d}/server.key\n\
         disable_plaintext_auth = no\n\
         auth_mechanisms = plain login\n\
         mail_location = maildir:~/Maildir\n\
         passdb {{\n  driver = passwd-file\n  args = scheme=PLAIN username_format=%u {d}/passwd\n}}\n\
         userdb {{\n  driver = passwd-file\n  args = username_format=%u {d}/passwd\n}}\n\
         service anvil {{\n  chroot =\n}}\n\
         service imap-login {{\n  chroot =\n  \
           inet_listener imap {{\n    port = {imap_port}\n  }}\n  \
           inet_listener imaps {{\n    port = {imaps_port}\n    ssl = yes\n  }}\n}}\n\
         {lmtp}",
        lmtp_protocol = if lmtp_port.is_some() { " lmtp" } else { "" },
        instance = dir.file_name().expect("a name").to_string_lossy(),
        user = account.user,
        group = account.group,
    );
    std::fs::write(dir.join("dovecot.conf"), conf).expect("dovecot.conf");

    let stderr = std::fs::File::create(dir.join("dovecot.stderr")).expect("a stderr file");
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(KEPT_BY_THE_TESTS)
        .arg("sh")
        .arg(DOVECOT)
        .arg(dir.join("dovecot.conf"))
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .expect("dovecot starts");
    let lifeline = child.stdin.take();
    let mut dovecot = Dovecot {
        dir,
        child,
        lifeline,
        imap_port,
        imaps_port,
        lmtp_port,
        users: users
            .iter()
            .map(|(u, p)| ((*u).to_owned(), (*p).to_owned()))
            .collect(),
    };
    let ports: Vec<u16> = [Some(imap_port), Some(imaps_port), lmtp_port]
        .into_iter()
        .flatten()
        .collect();
    let started = Instant::now();
    loop {
        if let Ok(Some(status)) = dovecot.child.try_wait() {
            return Err(format!("dovecot ended ({status}):\n{}", dovecot.log()));
        }
        let mut listening = true;
        for port in &ports {
            listening &= tokio::net::TcpStream::connect(("127.0.0.1", *port))
                .await
                .is_ok();
        }
        if listening {
            return Ok(dovecot);
        }
        if started.elapsed() > START_LIMIT {
            return Err(format!(
                "dovecot not listening on {ports:?} after {START_LIMIT:?}:\n{}",
                dovecot.log()
            ));
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// ca.crt, a test authority, and server.crt (with server.key) it signed for 127.0.0.1 and
/// localhost, as a hosted mailbox's certificate is signed by an authority its clients trust.
fn certificates(dir: &Path) {
    let openssl = |args: &[&str]| crate::tls::openssl(dir, args);
    let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"];
    openssl(
        &[
            &["req", "-x509", "-nodes", "-days", "2"][..],
            &ec,
            &[
                "-keyout",
                "ca.key",
                "-out",
                "ca.crt",
                "-subj",
                "/CN=warlog test mail authority",
            ],
        ]
        .concat(),
    );
    openssl(
        &[
            &["req", "-nodes"][..],
            &ec,
            &[
                "-keyout",
                "server.key",
                "-out",
                "server.csr",
                "-subj",
                "/CN=127.0.0.1",
            ],
        ]
        .concat(),
    );
    std::fs::write(
        dir.join("server.ext"),
        "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n\
         subjectAltName=IP:127.0.0.1,DNS:localhost\n",
    )
    .expect("the extensions");
    openssl(&[
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.crt",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-days",
        "2",
        "-extfile",
        "server.ext",
        "-out",
        "server.crt",
    ]);
}

/// `user:password@` as a URL's userinfo, percent-encoded beyond RFC 3986's unreserved.
fn userinfo(user: &str, password: &str) -> String {
    let escape = |text: &str| -> String {
        text.bytes()
            .map(|b| {
                if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                    char::from(b).to_string()
                } else {
                    format!("%{b:02X}")
                }
            })
            .collect()
    };
    format!("{}:{}@", escape(user), escape(password))
}

/// Lists a mailbox read-only (EXAMINE) over plain IMAP: `[[message_id, [flags...]], ...]`
/// in the mailbox's order, `\Recent` left out; `[]` when there is no such mailbox.
const LIST: &str = r#"
import email, imaplib, json, re, sys

port, user, password, mailbox = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
client = imaplib.IMAP4("127.0.0.1", port)
client.login(user, password)
quoted = '"' + mailbox.replace("\\", "\\\\").replace('"', '\\"') + '"'
status, data = client.select(quoted, readonly=True)
listed = []
if status == "OK" and int(data[0]) > 0:
    status, data = client.fetch("1:*", "(FLAGS BODY.PEEK[HEADER.FIELDS (MESSAGE-ID)])")
    assert status == "OK", data
    for i, item in enumerate(data):
        if not isinstance(item, tuple):
            continue
        head = item[0]
        after = data[i + 1] if i + 1 < len(data) and isinstance(data[i + 1], bytes) else b""
        found = re.search(rb"FLAGS \(([^)]*)\)", head) or re.search(rb"FLAGS \(([^)]*)\)", after)
        flags = sorted(f for f in (found.group(1).decode().split() if found else []) if f != "\\Recent")
        message_id = (email.message_from_bytes(item[1])["Message-ID"] or "").strip()
        listed.append([message_id, flags])
client.logout()
print(json.dumps(listed))
"#;

impl Dovecot {
    fn password(&self, user: &str) -> &str {
        self.users
            .iter()
            .find(|(u, _)| u == user)
            .map(|(_, p)| p.as_str())
            .unwrap_or_else(|| panic!("no such dovecot user: {user}"))
    }

    /// `imap://user:password@127.0.0.1:PORT/INBOX`: plain IMAP (user and password
    /// percent-encoded where a URL needs it).
    pub fn imap_url(&self, user: &str) -> String {
        format!(
            "imap://{}127.0.0.1:{}/INBOX",
            userinfo(user, self.password(user)),
            self.imap_port
        )
    }

    /// `imaps://user:password@127.0.0.1:PORT/INBOX`: IMAP over TLS from the first byte, the
    /// server's certificate signed by `ca_cert_path()` for 127.0.0.1 and localhost.
    pub fn imaps_url(&self, user: &str) -> String {
        format!(
            "imaps://{}127.0.0.1:{}/INBOX",
            userinfo(user, self.password(user)),
            self.imaps_port
        )
    }

    /// The test authority's certificate (PEM), for a client to trust.
    pub fn ca_cert_path(&self) -> PathBuf {
        self.dir.join("ca.crt")
    }

    pub fn imap_port(&self) -> u16 {
        self.imap_port
    }

    pub fn imaps_port(&self) -> u16 {
        self.imaps_port
    }

    /// Dovecot's own LMTP listener, when `dovecot-lmtpd` is installed.
    pub fn lmtp_port(&self) -> Option<u16> {
        self.lmtp_port
    }

    /// Dovecot's log so far (and what it wrote to its standard error).
    pub fn log(&self) -> String {
        let read = |name: &str| std::fs::read_to_string(self.dir.join(name)).unwrap_or_default();
        format!("{}{}", read("dovecot.log"), read("dovecot.stderr"))
    }

    /// `raw` put in `user`'s INBOX as the mail server's final delivery does it, by
    /// `dovecot-lda` (new mail: no flags; IDLE clients are told). Panics when refused.
    pub async fn deliver(&self, user: &str, raw: &[u8]) {
        self.password(user);
        let mut child = tokio::process::Command::new(LDA)
            .arg("-c")
            .arg(self.dir.join("dovecot.conf"))
            .arg("-d")
            .arg(user)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("dovecot-lda starts");
        let mut input = child.stdin.take().expect("a piped stdin");
        let raw = raw.to_vec();
        let feeding = tokio::spawn(async move {
            use tokio::io::AsyncWriteExt;
            let _ = input.write_all(&raw).await;
        });
        let out = tokio::time::timeout(Duration::from_secs(60), child.wait_with_output())
            .await
            .expect("dovecot-lda within a minute")
            .expect("dovecot-lda runs");
        let _ = feeding.await;
        assert!(
            out.status.success(),
            "dovecot-lda -d {user} failed ({}): {}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr),
            self.log()
        );
    }

    /// The messages in `user`'s INBOX: each one's Message-ID (as written, brackets
    /// included; empty when it has none) and flags (`\Seen`, `\Flagged`, keywords; sorted,
    /// `\Recent` left out), in the mailbox's order.
    pub async fn inbox(&self, user: &str) -> Vec<(String, Vec<String>)> {
        self.mailbox(user, "INBOX").await
    }

    /// The messages in `user`'s mailbox `name`, as `inbox` lists them; empty when there is
    /// no such mailbox. Read by Python's imaplib with EXAMINE, so nothing changes.
    pub async fn mailbox(&self, user: &str, name: &str) -> Vec<(String, Vec<String>)> {
        let args = [
            self.imap_port.to_string(),
            user.to_owned(),
            self.password(user).to_owned(),
            name.to_owned(),
        ];
        let out = python(LIST, &args, b"")
            .await
            .unwrap_or_else(|e| panic!("listing {user}'s {name}: {e}\n{}", self.log()));
        let listed: Value = serde_json::from_str(&out).expect("the listing as JSON");
        listed
            .as_array()
            .into_iter()
            .flatten()
            .map(|message| {
                let flags = message[1]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|f| f.as_str().map(str::to_owned))
                    .collect();
                (message[0].as_str().unwrap_or_default().to_owned(), flags)
            })
            .collect()
    }
}

impl Drop for Dovecot {
    /// Dovecot asked to stop (SIGTERM: its master ends its services), killed if it has not
    /// within ten seconds; then its directory removed.
    fn drop(&mut self) {
        self.lifeline.take();
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = Command::new("kill")
                .arg("-TERM")
                .arg(self.child.id().to_string())
                .status();
        }
        let asked = Instant::now();
        while matches!(self.child.try_wait(), Ok(None)) && asked.elapsed() < Duration::from_secs(10)
        {
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Over IMAPS, trusting only the test authority: log in, flag the first message in INBOX
/// `\Seen` and `\Flagged`, copy it to a new mailbox `Done`; prints the TLS version.
const FLAG_AND_FILE: &str = r#"
import imaplib, ssl, sys

port, user, password, ca = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
context = ssl.create_default_context(cafile=ca)
client = imaplib.IMAP4_SSL("127.0.0.1", port, ssl_context=context)
assert client.login(user, password)[0] == "OK"
assert client.select("INBOX")[0] == "OK"
assert client.store("1", "+FLAGS", "(\\Seen \\Flagged)")[0] == "OK"
assert client.create("Done")[0] == "OK"
assert client.copy("1", "Done")[0] == "OK"
print(client.sock.version())
client.logout()
"#;

#[actix_web::test]
async fn dovecot_takes_a_delivered_message_and_lists_it_with_its_flags() {
    let Some(dovecot) = start(&[("ann", "ann's secret"), ("bob", "hunter2")]).await else {
        return;
    };
    let reply = RawMail::reply(
        "Ann <ann@players.example>",
        "turn+abc@league.example",
        "Re: Your move",
        "reply-1@players.example",
        Some("move-1@league.example"),
        "Karelia → Archangel: 2 infantry\n",
    );
    dovecot.deliver("ann", &reply.to_bytes()).await;
    assert_eq!(
        dovecot.inbox("ann").await,
        [("<reply-1@players.example>".to_owned(), vec![])]
    );
    assert_eq!(dovecot.inbox("bob").await, []);
    assert_eq!(dovecot.mailbox("ann", "Done").await, []);

    // A client trusting the test authority reaches it over TLS, flags the message and
    // files a copy.
    let tls = python(
        FLAG_AND_FILE,
        &[
            dovecot.imaps_port().to_string(),
            "ann".to_owned(),
            "ann's secret".to_owned(),
            dovecot.ca_cert_path().display().to_string(),
        ],
        b"",
    )
    .await
    .unwrap_or_else(|e| panic!("{e}\n{}", dovecot.log()));
    assert!(tls.starts_with("TLSv1."), "{tls}");
    let flagged = vec!["\\Flagged".to_owned(), "\\Seen".to_owned()];
    assert_eq!(
        dovecot.inbox("ann").await,
        [("<reply-1@players.example>".to_owned(), flagged.clone())]
    );
    assert_eq!(
        dovecot.mailbox("ann", "Done").await,
        [("<reply-1@players.example>".to_owned(), flagged)]
    );

    let port = dovecot.imap_port();
    assert_eq!(
        dovecot.imap_url("ann"),
        format!("imap://ann:ann%27s%20secret@127.0.0.1:{port}/INBOX")
    );
    assert!(dovecot
        .imaps_url("bob")
        .starts_with("imaps://bob:hunter2@127.0.0.1:"));
}

/// The LMTP client against a real LMTP server, Dovecot's: one reply per recipient, the
/// unknown one refused, the message delivered byte for byte.
#[actix_web::test]
async fn lmtp_send_gets_a_reply_per_recipient_from_dovecots_lmtp() {
    let Some(dovecot) = start(&[("ann", "a"), ("bob", "b")]).await else {
        return;
    };
    let Some(port) = dovecot.lmtp_port() else {
        eprintln!("skipped: no dovecot-lmtpd ({LMTP})");
        return;
    };
    let raw = RawMail::reply(
        "Cy <cy@players.example>",
        "ann@players.example",
        "Orders",
        "lmtp-1@players.example",
        None,
        "",
    )
    .latin1_quoted_printable("Pénétrer")
    .to_bytes();
    let replies = lmtp_send(
        port,
        "cy@players.example",
        &["ann", "nobody-here", "bob"],
        &raw,
    )
    .await
    .unwrap_or_else(|e| panic!("{e}\n{}", dovecot.log()));
    let codes: Vec<(&str, u16)> = replies.iter().map(|(r, c, _)| (r.as_str(), *c)).collect();
    assert_eq!(
        codes,
        [("ann", 250), ("nobody-here", 550), ("bob", 250)],
        "{replies:?}"
    );
    for user in ["ann", "bob"] {
        assert_eq!(
            dovecot.inbox(user).await,
            [("<lmtp-1@players.example>".to_owned(), vec![])]
        );
    }
    // Dovecot keeps mail with LF line ends.
    let sent = String::from_utf8(raw).expect("ASCII").replace("\r\n", "\n");
    let maildir = dovecot.dir.join("mail/ann/Maildir");
    let delivered: Vec<String> = ["new", "cur"]
        .iter()
        .flat_map(|sub| std::fs::read_dir(maildir.join(sub)).expect("ann's maildir"))
        .map(|entry| std::fs::read_to_string(entry.expect("an entry").path()).expect("a message"))
        .collect();
    assert!(
        matches!(&delivered[..], [one] if one.ends_with(&sent)),
        "{delivered:?}"
    );
}
