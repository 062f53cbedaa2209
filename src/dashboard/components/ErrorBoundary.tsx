import { Text } from 'ink';
import { Component, type ReactNode } from 'react';

export interface ErrorBoundaryProps {
  /** what failed, for the one line: "panels", "header" */
  region: string;
  /** any change (a new frame of data) clears the error and renders again */
  resetKey: unknown;
  children: ReactNode;
}

interface ErrorBoundaryState {
  error: Error | null;
  resetKey: unknown;
}

/**
 * A render error in one region shows one line instead of the region and keeps
 * the dashboard alive: keys still work, q still quits, and the next frame of
 * data tries again. Without it, Ink unmounts the whole app on the first error.
 */
export class ErrorBoundary extends Component<ErrorBoundaryProps, ErrorBoundaryState> {
  override state: ErrorBoundaryState = { error: null, resetKey: this.props.resetKey };

  static getDerivedStateFromError(error: unknown): Partial<ErrorBoundaryState> {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  static getDerivedStateFromProps(props: ErrorBoundaryProps, state: ErrorBoundaryState): Partial<ErrorBoundaryState> | null {
    return props.resetKey === state.resetKey ? null : { error: null, resetKey: props.resetKey };
  }

  override render(): ReactNode {
    if (!this.state.error) return this.props.children;
    return <Text wrap="truncate" color="red">{`could not draw the ${this.props.region}: ${this.state.error.message.split('\n')[0]} (q quits)`}</Text>;
  }
}
