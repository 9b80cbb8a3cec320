"""Numbered schema migrations for the data database. Append only: never edit a shipped one.

What a stolen copy of this file shows is listed in README "Privacy model": pseudonymous row
keys, timestamps, worksheet ids and positions, prompt ids. Every text a person wrote, their
chat id and their settings are sealed (`*_enc` columns).
"""

from __future__ import annotations

MIGRATIONS: tuple[tuple[int, str], ...] = (
    (
        1,
        """
        CREATE TABLE people (
            person_id TEXT PRIMARY KEY,           -- random row id (keystore: identities)
            chat_enc BLOB NOT NULL,               -- sealed chat id
            profile_enc BLOB NOT NULL,            -- sealed JSON settings (country, timezone, ...)
            state TEXT NOT NULL DEFAULT '',       -- conversation position, never user text
            active INTEGER NOT NULL DEFAULT 1,    -- 0 once Telegram says the bot is blocked
            next_due_utc INTEGER,                 -- next daily prompt, unix seconds
            next_due_date TEXT,                   -- the person's local date of that prompt
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
        );
        CREATE INDEX people_due ON people (next_due_utc)
            WHERE next_due_utc IS NOT NULL AND active = 1;

        CREATE TABLE worksheet_progress (
            person_id TEXT NOT NULL REFERENCES people (person_id) ON DELETE CASCADE,
            worksheet_id TEXT NOT NULL,
            position INTEGER NOT NULL DEFAULT 0,  -- index of the question being asked
            finished_at INTEGER,
            started_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL,
            PRIMARY KEY (person_id, worksheet_id)
        );

        CREATE TABLE answer_parts (
            person_id TEXT NOT NULL REFERENCES people (person_id) ON DELETE CASCADE,
            worksheet_id TEXT NOT NULL,
            question_id TEXT NOT NULL,
            message_id INTEGER NOT NULL,          -- the person's message, so edits find it
            text_enc BLOB NOT NULL,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL,
            PRIMARY KEY (person_id, message_id)
        );
        CREATE INDEX answer_parts_question
            ON answer_parts (person_id, worksheet_id, question_id);

        CREATE TABLE journal (
            entry_id TEXT PRIMARY KEY,            -- random, part of the sealing slot
            person_id TEXT NOT NULL REFERENCES people (person_id) ON DELETE CASCADE,
            prompt_id TEXT,
            message_id INTEGER,
            text_enc BLOB NOT NULL,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
        );
        CREATE INDEX journal_person ON journal (person_id, created_at);
        CREATE UNIQUE INDEX journal_message ON journal (person_id, message_id);

        CREATE TABLE deliveries (
            person_id TEXT NOT NULL REFERENCES people (person_id) ON DELETE CASCADE,
            local_date TEXT NOT NULL,
            prompt_id TEXT NOT NULL,
            status TEXT NOT NULL,                 -- claimed | sent | failed | skipped
            message_id INTEGER,
            claimed_at INTEGER NOT NULL,
            PRIMARY KEY (person_id, local_date)
        );

        CREATE TABLE chat_messages (
            -- ids (never contents) of recent messages, so /clear and discreet mode can
            -- delete them; pruned after Telegram's 48-hour delete window.
            person_id TEXT NOT NULL REFERENCES people (person_id) ON DELETE CASCADE,
            message_id INTEGER NOT NULL,
            sent_at INTEGER NOT NULL,
            PRIMARY KEY (person_id, message_id)
        );
        CREATE INDEX chat_messages_age ON chat_messages (sent_at);

        CREATE TABLE crisis_counts (
            -- operator statistics only: no person, no text
            day TEXT NOT NULL,
            kind TEXT NOT NULL,
            count INTEGER NOT NULL,
            PRIMARY KEY (day, kind)
        );
        """,
    ),
    (
        2,
        """
        -- The id of the question at `position` when it was written: content authors may
        -- add or remove questions, and a person's place must follow their question, not
        -- its index. NULL for rows written before this column existed.
        ALTER TABLE worksheet_progress ADD COLUMN question_id TEXT;
        """,
    ),
    (
        3,
        """
        -- For a bot message that quotes someone's answers (a review page, a question shown
        -- with its answer), the worksheet it quotes: deleting that worksheet's answers
        -- deletes these messages from the chat too. Pruned with the rest after 48 hours.
        ALTER TABLE chat_messages ADD COLUMN quotes TEXT;
        """,
    ),
)

KEYSTORE_MIGRATIONS: tuple[tuple[int, str], ...] = (
    (
        1,
        """
        CREATE TABLE meta (
            name TEXT PRIMARY KEY,   -- 'check' (proves the master key), 'pseudonym_key' (wrapped)
            value BLOB NOT NULL
        );
        CREATE TABLE data_keys (
            person_id TEXT PRIMARY KEY,
            wrapped BLOB NOT NULL,
            created_at INTEGER NOT NULL
        );
        """,
    ),
    (
        2,
        """
        -- A rotation in progress: the next master key's check value and wrapped pseudonym
        -- key, and every data key wrapped under it too. Both keys open the store until
        -- `keys retire` makes the next key the only one.
        CREATE TABLE next_master (
            key_id INTEGER PRIMARY KEY,
            check_value BLOB NOT NULL,
            pseudonym_key BLOB NOT NULL
        );
        CREATE TABLE data_keys_next (
            person_id TEXT PRIMARY KEY,
            wrapped BLOB NOT NULL,
            created_at INTEGER NOT NULL
        );
        """,
    ),
    (
        3,
        """
        -- The only link from a Telegram user to their rows: the data database keys rows by
        -- a random row id, and this mapping (with the data key) is deleted on /forget, so
        -- no copy of the data database, however old, leads back to the person.
        -- `owner` names the data key and is bound into every sealed text's associated
        -- data: the row id for people who joined since, the handle for people who joined
        -- before (their texts were sealed under it; it never leaves this file).
        CREATE TABLE identities (
            handle TEXT PRIMARY KEY,      -- HMAC of the Telegram user id (pseudonym key)
            row_id TEXT NOT NULL UNIQUE,  -- random; the data database's person_id
            owner TEXT NOT NULL UNIQUE    -- data_keys.person_id
        );
        """,
    ),
    (
        4,
        """
        -- The newest revision of the person's sealed settings ever written (it is inside
        -- the sealed JSON, so it cannot be edited): an older one is a rolled-back row.
        ALTER TABLE identities ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
        """,
    ),
)
