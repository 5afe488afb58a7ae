function iSFFloat(f, t) {
  oSFFloat = f;
  for (;;) {}
}
