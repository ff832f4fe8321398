-- Each lease of quota units belongs to the server process that took it (its owner), and lives while
-- the owner keeps syncing (see hensachi.QuotaStore): quota_owner holds each owner's expiry, which
-- every sync moves forward; quota_lease holds the units each owner holds on each counter.
-- usage.leased stays the sum over a counter's leases, so the grant rule reads one row.
CREATE TABLE quota_owner (
    owner      TEXT        PRIMARY KEY,
    expires_at TIMESTAMPTZ NOT NULL
);
CREATE TABLE quota_lease (
    account_id BIGINT NOT NULL,
    service    TEXT   NOT NULL,
    day        TEXT   NOT NULL,
    owner      TEXT   NOT NULL,
    units      BIGINT NOT NULL CHECK (units >= 0),
    PRIMARY KEY (account_id, service, day, owner)
);
