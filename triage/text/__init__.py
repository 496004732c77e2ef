"""A message as text: folded (messages in disguise), cut into tokens, and the detectors of
phone numbers, e-mail and web addresses, postal addresses and codes."""
