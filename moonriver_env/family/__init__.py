"""The family's shared kit, inside no game: the game contract every generic layer is typed
against (:mod:`.contract`), grid geometry (:mod:`.geometry`), the draft of a column
(:mod:`.draft`), legal-action helpers (:mod:`.legal`), rng copying and a generator's words in
the core (:mod:`.rng`), checked reading of files (:mod:`.validation`), and what every game's
batched binding of the native core shares (:mod:`.batch`, :mod:`.native`, :mod:`.sparse`,
:mod:`.core_state`)."""
