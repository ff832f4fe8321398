-- The web origins whose pages may call the APIs with the account's keys; empty allows any origin
-- (hensachi.Account.Origins).
ALTER TABLE accounts ADD COLUMN origins TEXT[] NOT NULL DEFAULT '{}';
