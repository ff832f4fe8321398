CREATE TABLE accounts (
	id                INTEGER PRIMARY KEY,
	email             TEXT NOT NULL UNIQUE,
	plan              TEXT NOT NULL CHECK (plan IN ('free', 'pro')),
	created_at        TEXT NOT NULL,
	terms_version     TEXT NOT NULL DEFAULT '',
	terms_accepted_at TEXT
);

CREATE TABLE api_keys (
	id         INTEGER PRIMARY KEY,
	account_id INTEGER NOT NULL REFERENCES accounts (id),
	hash       BLOB NOT NULL UNIQUE,
	hint       TEXT NOT NULL,
	created_at TEXT NOT NULL,
	revoked_at TEXT
);
CREATE INDEX api_keys_account ON api_keys (account_id);

CREATE TABLE usage (
	account_id INTEGER NOT NULL REFERENCES accounts (id),
	service    TEXT NOT NULL,
	day        TEXT NOT NULL,
	count      INTEGER NOT NULL,
	PRIMARY KEY (account_id, service, day)
);
CREATE INDEX usage_day ON usage (day);
