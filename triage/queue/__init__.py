"""The expert's queue: the messages routed to a human, as files (`files`: export, apply), and the
reasons shown beside each (`reasons`), which the review workspace shows too."""
