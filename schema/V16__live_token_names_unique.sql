-- Names of live tokens are unique. The record names a command's sender by role and name
-- (`gm:dan`), and a GM's or director's rights follow that name: two live tokens sharing
-- one would share those rights. A revoked token keeps its name on the record (a
-- replacement may take the name again: a lost token is revoked and its holder given a
-- new one). An expired token is retired at its expiry when its name is given again
-- (`create_token`), since the index cannot read the clock.
--
-- Before the index: expired tokens are marked revoked at their expiry, and of live tokens
-- sharing a name the oldest keeps it; the later ones are revoked now (their holders need
-- a token under a name of their own: `warlog token list` shows them revoked).
UPDATE api_tokens SET revoked_at = expires_at
 WHERE revoked_at IS NULL AND expires_at <= now();

UPDATE api_tokens later SET revoked_at = now()
 WHERE later.revoked_at IS NULL
   AND EXISTS (
       SELECT 1 FROM api_tokens older
        WHERE older.name = later.name
          AND older.revoked_at IS NULL
          AND (older.created_at, older.token_hash) < (later.created_at, later.token_hash)
   );

CREATE UNIQUE INDEX api_tokens_live_name ON api_tokens (name) WHERE revoked_at IS NULL;
