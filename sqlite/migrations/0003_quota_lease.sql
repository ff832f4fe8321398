-- The embedded store serves one process and leases nothing; these tables keep the two dialects'
-- schemas at the same version (see postgres/migrations/0003_quota_lease.sql).
CREATE TABLE quota_owner (
    owner      TEXT PRIMARY KEY,
    expires_at TEXT NOT NULL
);
CREATE TABLE quota_lease (
    account_id INTEGER NOT NULL,
    service    TEXT    NOT NULL,
    day        TEXT    NOT NULL,
    owner      TEXT    NOT NULL,
    units      INTEGER NOT NULL CHECK (units >= 0),
    PRIMARY KEY (account_id, service, day, owner)
);
