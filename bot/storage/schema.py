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
    (
        4,
        """
        -- The record (/record): dated entries of what happened. In the clear only what an
        -- honest record needs to sort and date itself: when it happened (and how precisely
        -- the person said), when it was written, when each part and amendment was added.
        -- Which step a part answers, every word, every file, its kind and name are sealed.
        CREATE TABLE record_entries (
            entry_id TEXT PRIMARY KEY,            -- random, part of every sealing slot
            person_id TEXT NOT NULL REFERENCES people (person_id) ON DELETE CASCADE,
            happened_at INTEGER,                  -- unix seconds; NULL: not said
            precision INTEGER NOT NULL DEFAULT 0, -- 0 none, 1 the day, 2 the hour, 3 the minute
            written_at INTEGER NOT NULL,
            finished_at INTEGER                   -- NULL while it is being written
        );
        CREATE INDEX record_entries_person ON record_entries (person_id, written_at);

        CREATE TABLE record_parts (
            -- one message of an answer, or a dated amendment: never updated, only added
            part_id TEXT PRIMARY KEY,             -- random, in the sealing slot
            entry_id TEXT NOT NULL REFERENCES record_entries (entry_id) ON DELETE CASCADE,
            person_id TEXT NOT NULL REFERENCES people (person_id) ON DELETE CASCADE,
            message_id INTEGER,                   -- the person's message (edits, tidying the chat)
            body_enc BLOB NOT NULL,               -- sealed JSON: step and text
            created_at INTEGER NOT NULL
        );
        CREATE INDEX record_parts_entry ON record_parts (entry_id, created_at);

        CREATE TABLE record_files (
            file_id TEXT PRIMARY KEY,             -- random, in the sealing slots
            entry_id TEXT NOT NULL REFERENCES record_entries (entry_id) ON DELETE CASCADE,
            person_id TEXT NOT NULL REFERENCES people (person_id) ON DELETE CASCADE,
            message_id INTEGER,                   -- the person's message that carried it
            meta_enc BLOB NOT NULL,               -- sealed JSON: kind, type, name, caption
            data_enc BLOB NOT NULL,               -- sealed bytes, as Telegram served them
            created_at INTEGER NOT NULL
        );
        CREATE INDEX record_files_entry ON record_files (entry_id, created_at);
        """,
    ),
    (
        5,
        """
        -- Riding the wave (issue 15). Every field a person chose or typed is sealed; what
        -- shows is row ids, instants and the due instants the scheduler needs.
        -- One row per hard moment: strength, trigger (and typed words), the check-back's
        -- answer, all in one sealed JSON (slot urge:<urge_id>).
        CREATE TABLE urges (
            urge_id TEXT PRIMARY KEY,             -- random, part of the sealing slot
            person_id TEXT NOT NULL REFERENCES people (person_id) ON DELETE CASCADE,
            at INTEGER NOT NULL,                  -- when the flow began, unix seconds
            data_enc BLOB NOT NULL,
            follow_up_due INTEGER,                -- the check-back, unix seconds; NULL: none due
            updated_at INTEGER NOT NULL
        );
        CREATE INDEX urges_person ON urges (person_id, at);
        CREATE INDEX urges_follow_up_due ON urges (follow_up_due)
            WHERE follow_up_due IS NOT NULL;

        -- "Write the message you want to send, and I'll hold it": never sent anywhere.
        CREATE TABLE urge_drafts (
            draft_id TEXT PRIMARY KEY,            -- random, part of the sealing slot
            person_id TEXT NOT NULL REFERENCES people (person_id) ON DELETE CASCADE,
            text_enc BLOB NOT NULL,
            created_at INTEGER NOT NULL,
            offer_due INTEGER                     -- when to offer it back; NULL once offered
        );
        CREATE INDEX urge_drafts_person ON urge_drafts (person_id, created_at);
        CREATE INDEX urge_drafts_offer_due ON urge_drafts (offer_due)
            WHERE offer_due IS NOT NULL;

        -- Small per-person documents, each one sealed JSON or text: "reasons" (My
        -- reasons), "no_contact" (the dated marks of the count).
        CREATE TABLE urge_notes (
            person_id TEXT NOT NULL REFERENCES people (person_id) ON DELETE CASCADE,
            kind TEXT NOT NULL,
            data_enc BLOB NOT NULL,
            updated_at INTEGER NOT NULL,
            PRIMARY KEY (person_id, kind)
        );

        -- The optional 1-5 tap in the daily check-in, by the person's local date.
        CREATE TABLE moods (
            person_id TEXT NOT NULL REFERENCES people (person_id) ON DELETE CASCADE,
            local_date TEXT NOT NULL,
            rating_enc BLOB NOT NULL,
            updated_at INTEGER NOT NULL,
            PRIMARY KEY (person_id, local_date)
        );
        """,
    ),
    (
        6,
        """
        -- Who set a panic word (person ids only, nothing about the word): read at start-up
        -- to fill the in-memory check, so the check on each message never waits on storage.
        -- The digests themselves are in the sealed profile (docs/discretion.md).
        CREATE TABLE panic_words (
            person_id TEXT PRIMARY KEY REFERENCES people (person_id) ON DELETE CASCADE
        );

        -- Messages that remove themselves (an export in discreet mode): due time, swept by
        -- a repeating job, so a restart does not leave them lying.
        CREATE TABLE self_removals (
            person_id TEXT NOT NULL REFERENCES people (person_id) ON DELETE CASCADE,
            message_id INTEGER NOT NULL,
            due_at INTEGER NOT NULL,
            PRIMARY KEY (person_id, message_id)
        );
        CREATE INDEX self_removals_due ON self_removals (due_at);
        """,
    ),
    (
        7,
        """
        -- The version of a rewritable sealed row, bound into its associated data (see
        -- crypto.versioned_slot) and anchored in the key store's row_versions after each
        -- edit: an older copy put back is refused. 0 for rows never edited.
        ALTER TABLE journal ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE answer_parts ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
        """,
    ),
    (
        8,
        """
        -- Webhook mode: update ids already handled, so a redelivery (Telegram retries, or
        -- another replica got it first) changes nothing twice. Bot-wide ids, no person;
        -- pruned after 24 hours, Telegram's own retention.
        CREATE TABLE seen_updates (
            update_id INTEGER PRIMARY KEY,
            seen_at INTEGER NOT NULL
        );
        CREATE INDEX seen_updates_age ON seen_updates (seen_at);
        """,
    ),
    (
        9,
        """
        -- A /forget under way: written before the key store's delete, gone with the rows.
        -- One left at start is a /forget that stopped half-way, finished then, so start-up
        -- never has to compare every row with the key store (issue 25). No foreign key:
        -- it outlives the person's row by design, for the instant the delete takes.
        CREATE TABLE forgetting (
            person_id TEXT PRIMARY KEY
        );
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
    (
        5,
        """
        -- The newest version of each edited or deleted sealed row (journal entry, answer
        -- part), by its slot: a row older than its anchor is a copy put back; a deleted
        -- row's anchor is one past its last version, so it cannot come back. Only rows
        -- ever edited or deleted have one; /forget deletes them with the identity.
        CREATE TABLE row_versions (
            row_id TEXT NOT NULL,
            slot TEXT NOT NULL,
            version INTEGER NOT NULL,
            PRIMARY KEY (row_id, slot)
        );
        """,
    ),
    (
        6,
        """
        -- Nothing comparable with the data database (issue 27.3): identities.row_id and
        -- owner, data_keys.person_id and row_versions' row_id and slot now hold keyed
        -- references (HMAC under a key derived from the pseudonym key); the row id and
        -- owner a handle maps to are sealed here. Filled in by KeyStore on first open.
        ALTER TABLE identities ADD COLUMN sealed BLOB;
        """,
    ),
)
