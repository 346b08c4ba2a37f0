"""Real one-deck Badugi: the simulator and head-to-head matches with confidence intervals."""
