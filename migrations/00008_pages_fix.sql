-- Pages fixes: an autosave must not rewrite a revision a proposal is based on, so saving looks
-- proposals up by base revision.

-- +goose Up
CREATE INDEX page_edit_proposal_base_revision_idx ON page_edit_proposal (base_revision_id) WHERE base_revision_id IS NOT NULL;

-- +goose Down
DROP INDEX page_edit_proposal_base_revision_idx;
