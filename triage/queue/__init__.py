"""The expert's queue: the messages routed to a human, as files (`files`: export, apply), the rows
classify hands over for it (`handover`), and the reasons shown beside each (`reasons`), which the
review workspace shows too."""
