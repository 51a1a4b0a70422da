public enum MutexBaselinePlaceholder {}
