// Placeholder: the SwipeEngine module.
