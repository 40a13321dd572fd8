// Keeps a target buildable while its folder is being written.
namespace medsynth { int placeholder_symbol = 0; }
