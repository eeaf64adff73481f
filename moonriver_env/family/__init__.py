"""The family's shared kit, inside no game: the game contract every generic layer is typed
against (:mod:`.contract`), grid geometry (:mod:`.geometry`), the draft of a column
(:mod:`.draft`), legal-action helpers (:mod:`.legal`), rng copying (:mod:`.rng`) and checked
reading of files (:mod:`.validation`)."""
