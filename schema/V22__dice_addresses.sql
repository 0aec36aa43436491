-- Registered dice addresses (issue 52): as on TripleA's official dice server, an address is
-- named in a roll, and mailed it, only once its owner has confirmed it by a link mailed to
-- it. Only keyed hashes are kept (HMAC under the dice table key): nothing here shows an
-- address.
CREATE TABLE dice_addresses (
    address_key  bytea       PRIMARY KEY CHECK (length(address_key) = 16),
    confirmed_at timestamptz NOT NULL DEFAULT now()
);

-- An owner ends a registration by the link in every roll's mail (DELETE).
GRANT SELECT, INSERT, DELETE ON dice_addresses TO warlog_app;

-- Which tables name which addresses, so that an address's owner can list every table
-- naming it or an address that looks like it (`bob+x@`, `b.ob@`, Cyrillic letters): by
-- the keyed hash of the address and of its look-alike form. Written in the transaction of
-- each roll, so a table is listed from its first roll.
CREATE TABLE dice_table_names (
    lookalike_key bytea       NOT NULL CHECK (length(lookalike_key) = 16),
    address_key   bytea       NOT NULL CHECK (length(address_key) = 16),
    table_id      text        NOT NULL CHECK (table_id ~ '^[0-9a-f]{32}$'),
    named_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (lookalike_key, table_id, address_key)
);

GRANT SELECT, INSERT ON dice_table_names TO warlog_app;
