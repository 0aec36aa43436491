-- Turns by mail (issue 51): the inbox every message is stored in before anything is
-- decided, and what the outbox needs to answer one.
--
-- A message arrives over IMAP (a mailbox the operator has) or from the operator's mail
-- server (LMTP or SMTP). It is kept here first, whole, and the listener acknowledges it
-- (or the IMAP reader flags it) only once the row is committed; the intake decides each
-- row later and marks it decided only after its decision is on the record. A crash between
-- the two decides it again, and the command's idempotency key (the message's own key)
-- makes the second decision the first one's answer: nothing is lost, nothing repeated.
CREATE TABLE mail_inbox (
    inbox_id        bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- SHA-256 of the Message-ID (of the whole message when it has none): the same message
    -- delivered twice, or read again from the mailbox, is one row.
    message_key     bytea       NOT NULL UNIQUE CHECK (length(message_key) = 32),
    -- How it came: 'imap', 'lmtp' or 'smtp'.
    channel         text        NOT NULL CHECK (channel IN ('imap', 'lmtp', 'smtp')),
    -- The envelope's recipients where there was an envelope (LMTP, SMTP), else none.
    recipients      text[]      NOT NULL DEFAULT '{}',
    -- The message as it arrived; forgotten once decided (it holds the sender's address).
    raw             bytea,
    -- Over the size limit: only its header was kept, to answer it in words.
    oversized       boolean     NOT NULL DEFAULT false,
    received_at     timestamptz NOT NULL DEFAULT now(),
    attempts        integer     NOT NULL DEFAULT 0,
    -- Also the intake's lease: a claimed row is due again only after it.
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    decided_at      timestamptz,
    -- In coarse words, never the address: 'recorded', 'previewed', 'refused earlier-turn',
    -- 'ignored auto-submitted', ...
    outcome         text
);

CREATE INDEX mail_inbox_due_idx ON mail_inbox (next_attempt_at) WHERE decided_at IS NULL;

GRANT SELECT, INSERT, UPDATE ON mail_inbox TO warlog_app;

-- What a mail the service sends may carry besides its text: the address a reply goes to
-- (a turn's reply address, `turn+TOKEN@domain`), the message it answers (threading), and
-- the kind of automatic mail it is (RFC 3834's Auto-Submitted: 'auto-generated' for
-- notices and reports, 'auto-replied' for an answer to a player's mail).
ALTER TABLE mail_outbox ADD COLUMN reply_to text;
ALTER TABLE mail_outbox ADD COLUMN in_reply_to text;
ALTER TABLE mail_outbox ADD COLUMN auto_submitted text NOT NULL DEFAULT 'auto-generated'
    CHECK (auto_submitted IN ('auto-generated', 'auto-replied'));
