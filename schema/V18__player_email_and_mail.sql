-- "Your move" (issue 33): players' e-mail addresses and the outbox of mails telling a player
-- their turn has begun.
--
-- An address is private (the player and admins read it), so it is a row of its own, never an
-- event: the log is exported publicly and never forgets.
CREATE TABLE player_emails (
    handle  text        PRIMARY KEY,
    email   text        NOT NULL,
    -- Who set it (a token's name): the player, or an admin.
    set_by  text        NOT NULL,
    -- Mails are made only for turns begun after this (a projector working through the past
    -- writes none), like a webhook subscription's deliveries.
    set_at  timestamptz NOT NULL
);

-- Filled by the `webhooks` projection in the transaction that enqueues the webhook
-- deliveries, so each (event, player) gets exactly one mail row however often the service
-- restarts; the mail sender claims due rows, sends them and records the outcome. Rows are
-- made only while the service is configured to send mail. The recipient is read from
-- `player_emails` when the mail is sent: a player who removes the address gets no mail.
CREATE TABLE mail_outbox (
    -- The event's id and the player's handle.
    mail_id         text        PRIMARY KEY,
    event_id        uuid        NOT NULL,
    -- The event's place in the log: mails made together go out in the order of play.
    position        bigint      NOT NULL,
    handle          text        NOT NULL,
    subject         text        NOT NULL,
    body            text        NOT NULL,
    attempts        integer     NOT NULL DEFAULT 0,
    -- Also the sender's lease: a claimed row is due again only after it.
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    sent_at         timestamptz,
    -- Given up on (too old, tried too often, or the address was removed): kept, never sent.
    dead_at         timestamptz,
    -- In coarse words only (`refused`, `timeout`, `rejected 550`, ...).
    last_error      text,
    -- When the turn began (the event's recorded time): a mail's age, by which it is given
    -- up on, runs from it, so a projector catching up late sends no old news.
    began_at        timestamptz NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX mail_outbox_due_idx
    ON mail_outbox (next_attempt_at) WHERE sent_at IS NULL AND dead_at IS NULL;

GRANT SELECT, INSERT, UPDATE, DELETE ON player_emails TO warlog_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON mail_outbox TO warlog_app;
