-- Generation leases (issue 10): several instances share one database, so each unfinished answer
-- names the generation that writes it and until when that generation is known to be alive. The
-- generator renews its leases with one UPDATE per heartbeat; start-up and a periodic reaper mark
-- interrupted only answers whose lease has expired. Stop from any instance sets stop_requested_at,
-- which the lease holder reads at its next heartbeat.
--
-- generator_id: "<instance id>/<attempt>" of the generation holding the answer (NULL: not yet
-- claimed); lease_expires_at: the holder's heartbeat deadline (NULL: not claimed, then the
-- answer's updated_at plus the lease time counts).

-- +goose Up
ALTER TABLE chat_message
    ADD COLUMN generator_id      text,
    ADD COLUMN lease_expires_at  timestamptz,
    ADD COLUMN stop_requested_at timestamptz;

-- +goose Down
ALTER TABLE chat_message
    DROP COLUMN stop_requested_at,
    DROP COLUMN lease_expires_at,
    DROP COLUMN generator_id;
