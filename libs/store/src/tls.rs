//! TLS to PostgreSQL (rustls), as libpq's `sslmode` says: `disable`, `prefer` (TLS when the
//! server offers it), `require` (TLS, the certificate not checked), `verify-ca` (checked
//! against the roots, any host name) and `verify-full` (checked, and for this host).
//! `sslrootcert` names a PEM file of roots; without one, the Mozilla roots are used.
//!
//! tokio-postgres reads only `disable`, `prefer` and `require`, and no root file, so the
//! URL is read here first; the process keeps one setting for all its connections.

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::{Arc, OnceLock};

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::WebPkiServerVerifier;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{CertificateError, DigitallySignedStruct, Error, RootCertStore, SignatureScheme};
use tokio_postgres::config::SslMode as WireMode;
use tokio_postgres::Config;
use tokio_postgres_rustls::MakeRustlsConnect;

/// libpq's `sslmode`, as far as warlog honours it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SslMode {
    Disable,
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

impl FromStr for SslMode {
    type Err = String;

    fn from_str(value: &str) -> Result<Self, Self::Err> {
        Ok(match value {
            "disable" => SslMode::Disable,
            "allow" | "prefer" => SslMode::Prefer,
            "require" => SslMode::Require,
            "verify-ca" => SslMode::VerifyCa,
            "verify-full" => SslMode::VerifyFull,
            other => {
                return Err(format!(
                    "sslmode={other}: use disable, prefer, require, verify-ca or verify-full"
                ))
            }
        })
    }
}

/// How this process's connections use TLS.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsSettings {
    pub mode: SslMode,
    /// PEM roots (`sslrootcert`).
    pub root_cert: Option<PathBuf>,
}

impl TlsSettings {
    /// Plain connections (a discovered local server).
    pub const DISABLED: TlsSettings = TlsSettings {
        mode: SslMode::Disable,
        root_cert: None,
    };
}

/// Reads a PostgreSQL URL (or key=value string): its connection settings for
/// tokio-postgres, and its TLS settings.
pub fn parse_database_url(url: &str) -> Result<(Config, TlsSettings), String> {
    let mut mode = None;
    let mut root_cert = None;
    let rest = match url.split_once('?') {
        Some((base, query)) => {
            let mut kept = Vec::new();
            for pair in query.split('&').filter(|p| !p.is_empty()) {
                let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
                let value = percent_decode(value);
                match key {
                    "sslmode" => mode = Some(value.parse::<SslMode>()?),
                    "sslrootcert" => root_cert = Some(PathBuf::from(value)),
                    _ => kept.push(pair.to_owned()),
                }
            }
            if kept.is_empty() {
                base.to_owned()
            } else {
                format!("{base}?{}", kept.join("&"))
            }
        }
        None => url.to_owned(),
    };
    let mut config = Config::from_str(&rest).map_err(|e| e.to_string())?;
    // libpq's default is prefer.
    let mode = mode.unwrap_or(SslMode::Prefer);
    config.ssl_mode(match mode {
        SslMode::Disable => WireMode::Disable,
        SslMode::Prefer => WireMode::Prefer,
        SslMode::Require | SslMode::VerifyCa | SslMode::VerifyFull => WireMode::Require,
    });
    Ok((config, TlsSettings { mode, root_cert }))
}

fn percent_decode(value: &str) -> String {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match (bytes[i], bytes.get(i + 1..i + 3)) {
            (b'%', Some(hex)) => match u8::from_str_radix(&String::from_utf8_lossy(hex), 16) {
                Ok(byte) => {
                    out.push(byte);
                    i += 3;
                    continue;
                }
                Err(_) => out.push(b'%'),
            },
            (byte, _) => out.push(byte),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

static SETTINGS: OnceLock<TlsSettings> = OnceLock::new();

/// Sets this process's TLS settings, once (the first call wins); without a call,
/// connections are plain.
pub fn configure(settings: TlsSettings) {
    let _ = SETTINGS.set(settings);
}

/// The connector every connection of this process uses.
pub fn connector() -> Result<MakeRustlsConnect, String> {
    connector_for(SETTINGS.get().unwrap_or(&TlsSettings::DISABLED))
}

/// A connector for `settings`.
pub fn connector_for(settings: &TlsSettings) -> Result<MakeRustlsConnect, String> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let roots = Arc::new(roots(settings.root_cert.as_deref())?);
    let webpki = WebPkiServerVerifier::builder_with_provider(roots, provider.clone())
        .build()
        .map_err(|e| e.to_string())?;
    let checks = match settings.mode {
        SslMode::VerifyFull => Checks::ChainAndName,
        SslMode::VerifyCa => Checks::Chain,
        // Encrypted, not authenticated: libpq's require and prefer.
        SslMode::Disable | SslMode::Prefer | SslMode::Require => Checks::Nothing,
    };
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(Verifier { webpki, checks }))
        .with_no_client_auth();
    Ok(MakeRustlsConnect::new(config))
}

fn roots(file: Option<&Path>) -> Result<RootCertStore, String> {
    trust_roots(file, "sslrootcert")
}

/// The roots a TLS client trusts: those of the PEM `file` (named `label` in errors), or
/// the Mozilla roots without one. The IMAP reader trusts its server's by the same.
pub fn trust_roots(file: Option<&Path>, label: &str) -> Result<RootCertStore, String> {
    let mut store = RootCertStore::empty();
    match file {
        Some(path) => {
            for cert in CertificateDer::pem_file_iter(path)
                .map_err(|e| format!("{label} {}: {e}", path.display()))?
            {
                let cert = cert.map_err(|e| format!("{label} {}: {e}", path.display()))?;
                store
                    .add(cert)
                    .map_err(|e| format!("{label} {}: {e}", path.display()))?;
            }
        }
        None => store.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned()),
    }
    Ok(store)
}

/// What of the server's certificate is checked.
#[derive(Debug, Clone, Copy)]
enum Checks {
    /// require: nothing (the handshake's signatures still are).
    Nothing,
    /// verify-ca: the chain to a root, any host name.
    Chain,
    /// verify-full: the chain, and the host name.
    ChainAndName,
}

/// The standard verifier, relaxed as the mode allows.
#[derive(Debug)]
struct Verifier {
    webpki: Arc<WebPkiServerVerifier>,
    checks: Checks,
}

impl ServerCertVerifier for Verifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, Error> {
        if let Checks::Nothing = self.checks {
            return Ok(ServerCertVerified::assertion());
        }
        match self
            .webpki
            .verify_server_cert(end_entity, intermediates, server_name, ocsp, now)
        {
            Err(Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) if matches!(self.checks, Checks::Chain) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, Error> {
        self.webpki.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, Error> {
        self.webpki.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.webpki.supported_verify_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_url_gives_its_tls_settings_and_tokio_postgres_the_rest() {
        let (config, tls) = parse_database_url(
            "postgres://warlog@db.example:5433/league?sslmode=verify-full&sslrootcert=%2Fetc%2Fca.pem&application_name=warlog",
        )
        .expect("parsed");
        assert_eq!(tls.mode, SslMode::VerifyFull);
        assert_eq!(tls.root_cert, Some(PathBuf::from("/etc/ca.pem")));
        assert_eq!(config.get_ssl_mode(), WireMode::Require);
        assert_eq!(config.get_dbname(), Some("league"));
        assert_eq!(config.get_application_name(), Some("warlog"));
        let (config, tls) = parse_database_url("postgres://localhost/db").expect("parsed");
        assert_eq!(tls.mode, SslMode::Prefer, "libpq's default");
        assert_eq!(config.get_ssl_mode(), WireMode::Prefer);
        let error = parse_database_url("postgres://localhost/db?sslmode=maybe").expect_err("no");
        assert!(error.contains("verify-full"), "{error}");
    }
}
