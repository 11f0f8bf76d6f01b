-- The built-in agents every installation starts with (SPEC.md §6): "Auto", the router that answers
-- or hands off, and the "Markdown Assistant" that edits pages. They have no owner and are public.

-- +goose Up
INSERT INTO agents (identifier, name, description, avatar, agent_type, system_prompt, welcome_message, visibility, is_builtin, capabilities)
VALUES
    ('auto', 'Auto', 'Answers questions about your workspace, or hands them to the right specialist.', '✨', 'router',
     'You are Parley''s assistant. Answer clearly and concisely in Markdown. Use the search_workspace tool to look up the person''s pages and past conversations when the question may concern them, and cite what you used as links.',
     'Hi! Ask me anything, or ask me to find something in your pages and past conversations.',
     'public', true, '{"tools": true, "reasoning": true}'),
    ('markdown-assistant', 'Markdown Assistant', 'Edits markdown pages: proposes whole-page rewrites or changes to one section, which you review as diffs.', '📝', 'page_assistant',
     'You are the Markdown Assistant. You help the person edit the markdown page they are working on. Propose edits through the replace_entire_document and patch_section tools.',
     'I can edit this page for you: ask me to rewrite, rename, add or remove a section.',
     'public', true, '{"tools": true, "reasoning": true}')
ON CONFLICT (identifier) DO NOTHING;

-- +goose Down
DELETE FROM agents WHERE is_builtin AND identifier IN ('auto', 'markdown-assistant');
