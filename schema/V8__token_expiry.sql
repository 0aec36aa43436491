-- Tokens may expire: refused from then on, as revoked ones are.
ALTER TABLE api_tokens ADD COLUMN expires_at timestamptz;
